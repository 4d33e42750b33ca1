import Foundation
import TestFixtures
import TestSupport
import XCTest

/// The page (`--http`) from a watch driven by the scripted engine: read by headless Chromium, its
/// `/metrics` checked by promtool against the event log, and its faults: wrong methods and paths,
/// a missing token, slow and stalled clients.
final class WebTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private func watch(
        _ rules: String, script: [String], port: Int, more: [String] = [], environment: [String: String] = [:], stderr: String? = nil
    ) throws -> Process {
        let photos = try TestMedia.photoFolder(in: dir)
        let scriptFile = try Fixtures.script(script, in: dir)
        try FileManager.default.createDirectory(atPath: path("snapshots"), withIntermediateDirectories: true)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixtures.lookd)
        p.arguments =
            [
                "watch", "--source", photos, "--rules", rules, "--model", "script:" + scriptFile, "--photo-seconds", "0", "--no-sound",
                "--record", dir.path, "--log", path("events.jsonl"), "--snapshots", path("snapshots"), "--status", path("status.json"),
                "--seconds", "120", "--http", "127.0.0.1:\(port)",
            ] + more
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let stderr { FileManager.default.createFile(atPath: stderr, contents: nil) }
        p.standardError = FileHandle(forWritingAtPath: stderr ?? "/dev/null")
        try p.run()
        return p
    }

    /// `curl`'s status code and body for `url` (`method` other than GET with -X).
    private func fetch(_ url: String, method: String = "GET", header: String? = nil, body data: String? = nil) throws -> (code: Int, body: String) {
        let out = path("body-\(UUID().uuidString.prefix(6))")
        var args = ["-s", "-o", out, "-w", "%{http_code}", "-X", method, "--max-time", "10", url]
        if let header { args += ["-H", header] }
        if let data {
            let file = path("post-\(UUID().uuidString.prefix(6))")
            try data.write(toFile: file, atomically: false, encoding: .utf8)
            args += ["--data-binary", "@" + file]
        }
        let r = try Subprocess.run("/usr/bin/curl", args)
        let body = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        return (Int(r.stdout) ?? 0, body)
    }

    private func waitForPage(_ port: Int) {
        Poll.until(within: 30, every: 0.1) { (try? fetch("http://127.0.0.1:\(port)/api/status").code) == 200 }
    }

    /// The page's DOM after headless Chromium has run its script for `ms` milliseconds.
    private func dom(_ port: Int, ms: Int = 2500, screenshot: String? = nil) throws -> String {
        var args = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--timeout=\(ms)", "--user-data-dir=\(path("chromium"))"]
        if let screenshot { args += ["--window-size=1200,800", "--screenshot=\(screenshot)"] } else { args.append("--dump-dom") }
        return try Subprocess.run("/usr/bin/chromium", args + ["http://127.0.0.1:\(port)/"]).stdout
    }

    /// The page's DOM once it holds every one of `texts` (Chromium dumps it at its load event, which may
    /// come before the server-sent events that bring them, and the picture, the fires and the status
    /// come as separate events: it is loaded again until all are in, up to 10 times).
    private func dom(_ port: Int, holding text: String, _ more: String...) throws -> String {
        let texts = [text] + more
        var last = ""
        try Poll.until(within: 3, every: 0.3) {
            last = try dom(port)
            return texts.allSatisfy(last.contains)
        }
        return last
    }

    private func frameNumber(_ dom: String) -> Int? {
        guard let range = dom.range(of: #"data-frame="(\d+)""#, options: .regularExpression) else { return nil }
        return Int(dom[range].dropFirst(12).dropLast())
    }

    func testChromiumShowsTheRulesTheirAnswersAFireWithItsSnapshotAndTheFrame() throws {
        let port = LoopbackPort.free()
        let script = path("script.txt")
        let p = try watch("a test card=count|a cat=log", script: ["!wait 0.1 1. No\\n2. No"], port: port)
        defer { if p.isRunning { p.terminate() } }
        waitForPage(port)
        let before = try dom(
            port, holding: "data-frame=", #"<td class="answer no">no</td><td>1. a test card"#, #"<td class="answer no">no</td><td>2. a cat"#)
        XCTAssertTrue(before.contains("1. a test card → count"), before)
        XCTAssertTrue(before.contains(#"<td class="answer no">no</td><td>1. a test card"#), before)
        XCTAssertTrue(before.contains(#"<td class="answer no">no</td><td>2. a cat"#), before)
        XCTAssertFalse(before.contains(#"class="fire" data-fire="#), "no fire yet")
        let firstFrame = try XCTUnwrap(frameNumber(before))

        // A reader of the event stream, from before the fire.
        let stream = Process()
        stream.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        stream.arguments = ["-sN", "--max-time", "20", "http://127.0.0.1:\(port)/api/events"]
        _ = FileManager.default.createFile(atPath: path("stream.txt"), contents: nil)
        stream.standardOutput = FileHandle(forWritingAtPath: path("stream.txt"))
        try stream.run()
        defer { stream.terminate() }
        usleep(500_000)

        // The card turns up: its answer, its fire with the snapshot, and a newer frame.
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: script))
        handle.seekToEndOfFile()
        handle.write(Data("!wait 0.1 1. Yes\\n2. No\n".utf8))
        try handle.close()
        EventLogFile.waitForLines(path("events.jsonl"), containing: "\"event\":\"fire\"")
        let after = try dom(
            port, holding: #"class="fire" data-fire="#, #"<td class="answer yes">yes</td><td>1. a test card"#, #"<td class="fired">fired ×1</td>"#)
        XCTAssertTrue(after.contains(#"<td class="answer yes">yes</td><td>1. a test card"#), after)
        XCTAssertTrue(after.contains(#"<td class="shown">×1</td><td class="fired">fired ×1</td>"#), after)
        let fire = try XCTUnwrap(EventLogFile.read(path("events.jsonl")).first { $0["event"] as? String == "fire" })
        let snapshot = try XCTUnwrap((fire["snapshot"] as? String).map { ($0 as NSString).lastPathComponent })
        XCTAssertEqual(after.components(separatedBy: #"class="fire" data-fire="1""#).count, 2, "the fire, once")
        XCTAssertTrue(after.contains(#"<img src="/snapshots/\#(snapshot)""#), after)
        XCTAssertGreaterThan(try XCTUnwrap(frameNumber(after)), firstFrame, "the frame image moved on")
        for dom in [before, after] {
            // The header names the frame the picture shows (the status comes less often than frames).
            let shown = try XCTUnwrap(frameNumber(dom))
            XCTAssertTrue(dom.contains(" · frame \(shown) · "), "header and picture agree on frame \(shown)")
        }
        // The stream carried the status, the new frames and the fire as they came.
        EventLogFile.waitForLines(path("stream.txt"), containing: "event: fire")
        let streamed = try String(contentsOfFile: path("stream.txt"), encoding: .utf8)
        XCTAssertTrue(streamed.contains("event: status\ndata: {"), streamed)
        XCTAssertTrue(streamed.contains("event: frame\ndata: {\"frame\":"), streamed)
        XCTAssertTrue(streamed.contains("event: fire\ndata: {\"instance\""), streamed)
        // The snapshot and the frame are served as JPEG.
        let jpeg = try Subprocess.run(
            "/usr/bin/curl", ["-s", "-o", path("s.jpg"), "-w", "%{http_code} %{content_type}", "http://127.0.0.1:\(port)/snapshots/\(snapshot)"])
        XCTAssertEqual(jpeg.stdout, "200 image/jpeg")
        XCTAssertEqual(FileManager.default.contents(atPath: path("s.jpg")), FileManager.default.contents(atPath: path("snapshots/\(snapshot)")))
        XCTAssertEqual(try fetch("http://127.0.0.1:\(port)/frame.jpg").code, 200)
        // Each rule's strip of its latest answers: the card's no, its yes with the fire mark, the cat's nos.
        XCTAssertTrue(after.contains(#"src="/timeline.svg?rule=1&amp;frame="#) || after.contains(#"src="/timeline.svg?rule=1&frame="#), after)
        let card = try fetch("http://127.0.0.1:\(port)/timeline.svg?rule=1")
        XCTAssertEqual(card.code, 200)
        XCTAssertTrue(card.body.hasPrefix("<svg"), card.body)
        XCTAssertGreaterThanOrEqual(card.body.components(separatedBy: #"class="yes""#).count - 1, 1, card.body)
        XCTAssertGreaterThanOrEqual(card.body.components(separatedBy: #"class="no""#).count - 1, 1, card.body)
        XCTAssertEqual(card.body.components(separatedBy: #"class="fire""#).count - 1, 1, "the card's one fire")
        let cat = try fetch("http://127.0.0.1:\(port)/timeline.svg?rule=2").body
        XCTAssertEqual(cat.components(separatedBy: #"class="yes""#).count - 1, 0, cat)
        XCTAssertEqual(try fetch("http://127.0.0.1:\(port)/timeline.svg?rule=3").code, 404)
        _ = try dom(port, screenshot: path("page.png"))
        print("SCREENSHOT the page: \(path("page.png"))")
        XCTAssertGreaterThan((try? FileManager.default.attributesOfItem(atPath: path("page.png"))[.size] as? Int) ?? 0, 10_000, "a screenshot")
    }

    /// The review page: the history's fires in headless Chromium, newest first, each with its
    /// snapshot and rule; the filters (a rule, a day, a page) both in the page and in /api/history.
    func testTheHistoryPageListsTheFiresAndItsFiltersWork() throws {
        let port = LoopbackPort.free()
        let p = try watch("a test card=count|a cat=log", script: ["!wait 0.05 1. Yes\\n2. No", "!wait 0.05 1. No\\n2. Yes"], port: port)
        defer { if p.isRunning { p.terminate() } }
        waitForPage(port)
        EventLogFile.waitForLines(path("events.jsonl"), containing: "\"condition\":\"a cat\"")
        var api = try fetch("http://127.0.0.1:\(port)/api/history")
        Poll.until(within: 5, every: 0.1) { // the history has both rules' fires
            api = (try? fetch("http://127.0.0.1:\(port)/api/history")) ?? api
            return api.body.contains("\"a test card\"") && api.body.contains("\"a cat\"")
        }
        XCTAssertEqual(api.code, 200, api.body)
        let data = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(api.body.utf8)) as? [String: Any])
        let fires = try XCTUnwrap(data["fires"] as? [[String: Any]])
        XCTAssertGreaterThanOrEqual(fires.count, 2, api.body)
        XCTAssertEqual(Set(data["rules"] as? [String] ?? []), ["a test card", "a cat"])
        XCTAssertTrue(fires.allSatisfy { ($0["snapshot_url"] as? String)?.hasPrefix("/snapshots/fire-") == true }, api.body)
        let snapshot = try XCTUnwrap(fires.first?["snapshot_url"] as? String)
        XCTAssertEqual(try fetch("http://127.0.0.1:\(port)\(snapshot)").code, 200, "its snapshot is served")
        // Filters: a rule, a day (today has them, another day none), a page.
        let cats = try fetch("http://127.0.0.1:\(port)/api/history?rule=cat").body
        let catFires = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(cats.utf8)) as? [String: Any])["fires"] as? [[String: Any]]
        XCTAssertEqual(catFires?.compactMap { $0["condition"] as? String }, ["a cat"], cats)
        let day = DateFormatter()
        day.dateFormat = "yyyy-MM-dd"
        XCTAssertTrue(try fetch("http://127.0.0.1:\(port)/api/history?day=\(day.string(from: Date()))").body.contains("a cat"))
        XCTAssertTrue(try fetch("http://127.0.0.1:\(port)/api/history?day=2001-01-01").body.contains("\"fires\":[]"))
        XCTAssertEqual(try fetch("http://127.0.0.1:\(port)/api/history?day=soon").code, 400)
        // The page, in Chromium: every fire listed, then only the cat's when the address asks.
        let dump = { (query: String) throws -> String in
            let args = ["--headless", "--no-sandbox", "--disable-gpu", "--timeout=2500", "--user-data-dir=\(self.path("chromium"))", "--dump-dom"]
            return try Subprocess.run("/usr/bin/chromium", args + ["http://127.0.0.1:\(port)/history\(query)"]).stdout
        }
        let all = try dump("")
        XCTAssertTrue(all.contains(#"data-rule="a cat""#) && all.contains(#"data-rule="a test card""#), all)
        XCTAssertTrue(all.contains(#"<img src="/snapshots/fire-"#), all)
        let filtered = try dump("?rule=a%20cat")
        XCTAssertTrue(filtered.contains(#"data-rule="a cat""#), filtered)
        XCTAssertFalse(filtered.contains(#"data-rule="a test card""#), filtered)
        XCTAssertTrue(try dom(port).contains(#"href="/history""#), "the live page links to it")
        _ = try Subprocess.run(
            "/usr/bin/chromium",
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--timeout=2500", "--user-data-dir=\(path("chromium"))",
                "--window-size=1000,700", "--screenshot=\(path("history.png"))", "http://127.0.0.1:\(port)/history",
            ])
        print("SCREENSHOT the history page: \(path("history.png"))")
        XCTAssertGreaterThan((try? FileManager.default.attributesOfItem(atPath: path("history.png"))[.size] as? Int) ?? 0, 10_000, "a screenshot")
    }

    func testAFiresClipPlaysInTheHistoryPageWithItsLength() throws {
        let port = LoopbackPort.free()
        let video = path("in.mp4")
        try TestMedia.clip(video, seconds: 30, fps: 30, width: 640, height: 480)
        let script = try Fixtures.script(["!wait 1 1. No", "!wait 1 1. No", "!wait 1 1. Yes", "!wait 1 1. No"], in: dir)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixtures.lookd)
        p.arguments = [
            "watch", "--source", video, "--rules", "a test card=log", "--model", "script:" + script, "--no-sound", "--record", dir.path,
            "--log", path("events.jsonl"), "--status", path("status.json"), "--state", "off", "--seconds", "60", "--http", "127.0.0.1:\(port)",
            "--clips", "on", "--pre-roll", "2", "--post-roll", "2",
        ]
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        EventLogFile.waitForLines(path("events.jsonl"), containing: "\"event\":\"clip\"")
        let clip = try XCTUnwrap(try EventLogFile.read(path("events.jsonl")).first { $0["event"] as? String == "clip" })
        let seconds = try XCTUnwrap(clip["duration_s"] as? Double)
        XCTAssertEqual(seconds, 4, accuracy: 1.05, "2 s before the fire's frame and 2 s after, from a keyframe (one a second)")
        let api = try fetch("http://127.0.0.1:\(port)/api/history").body
        let fire = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(api.utf8)) as? [String: Any])?["fires"] as? [[String: Any]])
        let url = try XCTUnwrap(fire.first?["clip_url"] as? String, api)
        XCTAssertTrue(url.hasPrefix("/clips/clip-") && url.hasSuffix(".mp4"), url)
        let served = try fetch("http://127.0.0.1:\(port)\(url)")
        XCTAssertEqual(served.code, 200)
        XCTAssertEqual(try fetch("http://127.0.0.1:\(port)/clips/..%2Fin.mp4").code, 404, "only a clip's own name")
        // The live page's fire links to its clip once it is written.
        let live = try dom(port, holding: "class=\"clip\"")
        XCTAssertTrue(live.contains(#"<a class="clip" href="\#(url)">clip ("#), live)
        // Chromium plays it: the page's <video> reads its index and says its length.
        var page = ""
        for _ in 0..<5 {
            let args = ["--headless", "--no-sandbox", "--disable-gpu", "--timeout=4000", "--user-data-dir=\(path("chromium"))", "--dump-dom"]
            page = try Subprocess.run("/usr/bin/chromium", args + ["http://127.0.0.1:\(port)/history"]).stdout
            if page.contains("data-clip-seconds") { break }
        }
        XCTAssertTrue(page.contains("<video"), page)
        let range = try XCTUnwrap(page.range(of: #"data-clip-seconds="[0-9.]+""#, options: .regularExpression), page)
        let shown = Double(page[range].dropFirst(19).dropLast()) ?? -1
        XCTAssertEqual(shown, seconds, accuracy: 0.1, "Chromium reads the clip's length as lookd wrote it")
    }

    func testMetricsPassPromtoolAndMatchTheEventLog() throws {
        let port = LoopbackPort.free()
        // Six answered frames (two fires of the card, one of the cat), then the model takes its time,
        // so the counts stand still while they are read.
        let lines = [
            "1. Yes\\n2. No", "1. No\\n2. No", "1. Yes\\n2. Yes", "1. Yes\\n2. Yes", "1. No\\n2. No", "1. No\\n2. No", "!wait 60 1. No\\n2. No",
        ]
        let p = try watch("a test card=count|a cat=log", script: lines, port: port, more: ["--cooldown", "0"])
        defer { if p.isRunning { p.terminate() } }
        EventLogFile.waitForLines(path("events.jsonl"), containing: "\"event\":\"watch\"", count: 6)
        waitForPage(port)
        let metrics = try fetch("http://127.0.0.1:\(port)/metrics")
        XCTAssertEqual(metrics.code, 200)
        try metrics.body.write(toFile: path("metrics.txt"), atomically: true, encoding: .utf8)
        let check = try Subprocess.run("/bin/sh", ["-c", "promtool check metrics < \"$1\"", "sh", path("metrics.txt")])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)

        let events = try EventLogFile.read(path("events.jsonl"))
        let answered = events.filter { $0["event"] as? String == "watch" }.count
        let fires = events.filter { $0["event"] as? String == "fire" }
        func value(_ sample: String) -> Int? {
            metrics.body.split(separator: "\n").first { $0.hasPrefix(sample + " ") }.flatMap { Int($0.split(separator: " ").last!) }
        }
        XCTAssertEqual(value(#"lookd_frames_total{outcome="answered"}"#), answered)
        XCTAssertEqual(answered, 6)
        XCTAssertEqual(
            value(#"lookd_fires_total{rule="a test card",reaction="count"}"#), fires.filter { $0["condition"] as? String == "a test card" }.count)
        XCTAssertEqual(value(#"lookd_fires_total{rule="a cat",reaction="log"}"#), fires.filter { $0["condition"] as? String == "a cat" }.count)
        XCTAssertEqual(fires.count, 3)
        XCTAssertEqual(value(#"lookd_model_seconds_count"#), answered)
        XCTAssertEqual(value(#"lookd_reloads_total{result="ok"}"#), 0)
        XCTAssertEqual(value(#"lookd_source_up"#), 1)
        XCTAssertGreaterThan(value("process_resident_memory_bytes") ?? 0, 1_000_000)
    }

    func testATokenlessPageAnswersOnlyThisMachinesNamesAndServesNoLinkedFile() throws {
        // An empty or blank token guards nothing: refused before the run, whichever way it is given.
        let photos = try TestMedia.photoFolder(in: dir)
        for token in ["", "  ", "two words"] {
            let refused = try Subprocess.run(
                Fixtures.lookd,
                ["watch", "--source", photos, "--rules", "a cat=log", "--model", "script:/dev/null", "--http", "0.0.0.0:8470", "--http-token", token])
            XCTAssertEqual(refused.status, 2, "token \"\(token)\"")
            XCTAssertTrue(refused.stderr.contains("--http-token"), refused.stderr)
        }
        let port = LoopbackPort.free()
        let p = try watch("a cat=log", script: ["!wait 0.05 1. No"], port: port)
        defer { if p.isRunning { p.terminate() } }
        waitForPage(port)
        let base = "http://127.0.0.1:\(port)"
        // DNS rebinding: another site's name pointed at 127.0.0.1 sends that name as the Host.
        for host in ["evil.example", "evil.example:\(port)", "127.0.0.1.evil.example", "[::2]:\(port)"] {
            XCTAssertEqual(try fetch(base + "/api/status", header: "Host: \(host)").code, 403, host)
        }
        for host in ["localhost:\(port)", "127.0.0.1:\(port)", "127.1.2.3", "[::1]:\(port)"] {
            XCTAssertEqual(try fetch(base + "/api/status", header: "Host: \(host)").code, 200, host)
        }
        XCTAssertEqual(try fetch(base + "/api/events", header: "Origin: https://evil.example").code, 403)
        XCTAssertEqual(try fetch(base + "/api/status", header: "Origin: null").code, 403)
        XCTAssertEqual(try fetch(base + "/api/status", header: "Origin: http://localhost:\(port)").code, 200)
        // A link planted in the snapshots folder is not followed; a snapshot is served.
        try FileManager.default.createSymbolicLink(atPath: path("snapshots/fire-1-00001.jpg"), withDestinationPath: "/etc/passwd")
        try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: dir.appendingPathComponent("snapshots/fire-1-00002.jpg"))
        let linked = try fetch(base + "/snapshots/fire-1-00001.jpg")
        XCTAssertEqual(linked.code, 404)
        XCTAssertFalse(linked.body.contains("root:"))
        XCTAssertEqual(try fetch(base + "/snapshots/fire-1-00002.jpg").code, 200)
    }

    func testAConditionThatLooksLikeMarkupLeavesThePageWorking() throws {
        let port = LoopbackPort.free()
        let p = try watch("a cat <!--<script>alert(1)</script>=log", script: ["!wait 0.1 1. No"], port: port)
        defer { if p.isRunning { p.terminate() } }
        waitForPage(port)
        let page = try dom(port, holding: "data-frame=", "1. a cat &lt;")
        XCTAssertTrue(page.contains("1. a cat &lt;!--&lt;script&gt;alert(1)&lt;/script&gt;"), page)
        XCTAssertFalse(page.contains(">connecting…<"), "the page read its state")
    }

    /// A tab closed while its event stream is being sent is the web's everyday, not lookd's trouble:
    /// no line on the terminal or in the journal (libmicrohttpd's "Failed to send the chunked
    /// response body" was one each time).
    func testAClosedTabLeavesNoLine() throws {
        let port = LoopbackPort.free()
        let p = try watch("a cat=log", script: ["!wait 0.1 1. No"], port: port, stderr: path("stderr.txt"))
        defer { if p.isRunning { p.terminate() } }
        waitForPage(port)
        for _ in 0..<3 {
            _ = try Subprocess.run("/usr/bin/curl", ["-s", "-N", "--max-time", "1", "http://127.0.0.1:\(port)/api/events"])
        }
        sleep(5) // the streams' next writes meet the closed connections
        p.interrupt()
        p.waitUntilExit()
        let text = try String(contentsOfFile: path("stderr.txt"), encoding: .utf8)
        XCTAssertTrue(text.contains("Stopped"), "standard error was kept: \(text)")
        XCTAssertFalse(text.contains("Failed to send"), text)
        XCTAssertFalse(text.contains("page:"), text)
    }

    func testOnlyGETOnlyItsPathsAndATokenOffLoopback() throws {
        // Off loopback without a token: refused before the run.
        let photos = try TestMedia.photoFolder(in: dir)
        let refused = try Subprocess.run(
            Fixtures.lookd, ["watch", "--source", photos, "--rules", "a cat=log", "--model", "script:/dev/null", "--http", "0.0.0.0:8470"])
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("reachable from other machines: set a token"), refused.stderr)

        let port = LoopbackPort.free()
        let p = try watch("a cat=log", script: ["!wait 0.05 1. No"], port: port, environment: ["LOOKD_HTTP_TOKEN": "s3cret"])
        defer { if p.isRunning { p.terminate() } }
        p.arguments = nil
        let base = "http://127.0.0.1:\(port)"
        Poll.until(within: 30, every: 0.1) { (try? fetch(base + "/api/status?token=s3cret").code) == 200 }
        XCTAssertEqual(try fetch(base + "/api/status").code, 401)
        XCTAssertEqual(try fetch(base + "/api/status?token=wrong").code, 401)
        XCTAssertEqual(try fetch(base + "/api/status?token=s3cret").code, 200)
        XCTAssertEqual(try fetch(base + "/metrics", header: "Authorization: Bearer s3cret").code, 200)
        XCTAssertEqual(try fetch(base + "/metrics", header: "Authorization: Bearer s3cre").code, 401)
        for method in ["POST", "PUT", "DELETE", "PATCH"] { XCTAssertEqual(try fetch(base + "/?token=s3cret", method: method).code, 405, method) }
        // A body is read and the answer is still a 405, not a closed connection.
        for body in ["a=1", String(repeating: "x", count: 200_000)] {
            XCTAssertEqual(try fetch(base + "/api/status?token=s3cret", method: "POST", body: body).code, 405, "a body of \(body.count)")
        }
        for bad in ["/etc/passwd", "/snapshots/../status.json", "/snapshots/notes.txt", "/api", "/frame.png"] {
            XCTAssertEqual(try fetch(base + bad + "?token=s3cret").code, 404, bad)
        }
    }

    func testSlowAndStalledClientsLeaveTheFrameTimesAlone() throws {
        let port = LoopbackPort.free()
        let p = try watch(
            "a test card=count", script: ["!wait 0.05 1. Yes", "!wait 0.05 1. No"] + Array(repeating: "!wait 0.05 1. No", count: 1), port: port)
        defer { if p.isRunning { p.terminate() } }
        waitForPage(port)
        let log = path("events.jsonl")
        func frameTimes(from: Int) throws -> [Double] {
            try EventLogFile.read(log).filter { $0["event"] as? String == "watch" && ($0["frame"] as? Int ?? 0) > from }.compactMap {
                $0["done_ms"] as? Double
            }
        }
        func lastFrame() throws -> Int { try EventLogFile.read(log).last { $0["event"] as? String == "watch" }?["frame"] as? Int ?? 0 }
        func clients(_ mode: String, _ n: Int, _ seconds: Int) throws -> Process {
            let c = Process()
            c.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            c.arguments = [
                "python3", Fixtures.root.appendingPathComponent("Tests/Fixtures/page_clients.py").path, String(port), mode, String(n),
                String(seconds),
            ]
            let out = Pipe()
            c.standardOutput = out
            try c.run()
            _ = out.fileHandleForReading.availableData // "ready"
            return c
        }
        sleep(3)
        let quiet = try frameTimes(from: 0)
        var mark = try lastFrame()
        let pages = try clients("pages", 10, 3)
        pages.waitUntilExit()
        let withPages = try frameTimes(from: mark)
        mark = try lastFrame()
        let stalled = try clients("stalled", 200, 3)
        stalled.waitUntilExit()
        let withStalled = try frameTimes(from: mark)
        // The page answers again once they are gone (a stream's thread finds its reader gone at the
        // next keep-alive, within 2 s).
        Poll.until(within: 15, every: 0.2) { (try? fetch("http://127.0.0.1:\(port)/api/status").code) == 200 }
        XCTAssertEqual(try fetch("http://127.0.0.1:\(port)/api/status").code, 200)
        func median(_ xs: [Double]) -> Double { xs.isEmpty ? 0 : xs.sorted()[xs.count / 2] }
        print(
            "MEASURE frame done_ms median: no page \(median(quiet)) (\(quiet.count) frames), 10 pages \(median(withPages)) (\(withPages.count)), "
                + "200 stalled clients \(median(withStalled)) (\(withStalled.count)); max \(withPages.max() ?? 0), \(withStalled.max() ?? 0)")
        XCTAssertGreaterThan(withPages.count, 10)
        XCTAssertGreaterThan(withStalled.count, 10)
        XCTAssertLessThan(withStalled.max() ?? 0, 1000, "no frame waited on a client")
    }
}
