import Foundation
import TestFixtures
import TestSupport
import XCTest

/// `notify:` end to end: a fire reaches a phone's notification server as ntfy's publish form
/// documents it (docs.ntfy.sh/publish: the topic in the path, the snapshot as the body with
/// `Filename` and the message in `Message`, `Title`, `Priority`, `Tags`, `Click`, a Bearer token;
/// a header that is not ASCII in RFC 2047's form), or as Gotify's JSON. No ntfy server is packaged
/// by Debian or PyPI: the tests' own loopback server records the requests and each is checked here
/// against that form.
final class NotifyTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private func watch(_ rule: String, snapshots: Bool = true, extra: [String] = []) throws -> (Subprocess, [PostServer.Request]) {
        let server = try PostServer()
        let rules = path("rules.yaml")
        try rule.replacingOccurrences(of: "SERVER", with: server.url("")).write(toFile: rules, atomically: true, encoding: .utf8)
        let script = try Fixtures.script(["1. Yes"], in: dir)
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", try TestMedia.photoFolder(in: dir), "--rules", rules, "--model", "script:" + script, "--photo-seconds", "0",
                "--no-sound", "--record", dir.path, "--log", path("events.jsonl"), "--seconds", "0.5",
            ] + (snapshots ? ["--snapshots", path("snaps")] : []) + extra,
            environment: ["LOOKD_NOTIFY_TOKEN": "tk_lookd_test", "LOOKD_NOTIFY_USER": "u_lookd_test"])
        return (r, server.requests)
    }

    func testAFireReachesNtfyWithItsSnapshotInTheDocumentedForm() throws {
        let (r, requests) = try watch(
            """
            rules:
              - when: a cat on the sofa
                notify:
                  url: SERVER/ok
                  title: Café door
                  priority: high
                  tags: [cat, warning]
                  click: http://127.0.0.1:8470/

            """)
        XCTAssertEqual(r.status, 0, r.stderr)
        let request = try XCTUnwrap(requests.first, r.stderr)
        XCTAssertEqual(requests.count, 1, "one fire, one notification")
        // The topic: ntfy's topic names are [-_A-Za-z0-9], up to 64.
        XCTAssertNotNil(request.path.wholeMatch(of: /\/[-_A-Za-z0-9]{1,64}/), request.path)
        let h = request.headers
        XCTAssertEqual(h["Title"], "=?UTF-8?B?" + Data("Café door".utf8).base64EncodedString() + "?=", "not ASCII: RFC 2047")
        XCTAssertEqual(h["Priority"], "4")
        XCTAssertEqual(h["Tags"], "cat,warning")
        XCTAssertEqual(h["Click"], "http://127.0.0.1:8470/")
        XCTAssertEqual(h["Authorization"], "Bearer tk_lookd_test")
        XCTAssertEqual(h["Content-Type"], "image/jpeg")
        XCTAssertNotNil(h["Filename"]?.wholeMatch(of: /fire-\d+-\d+\.jpg/), "\(h)")
        XCTAssertTrue(h["Message"]?.hasPrefix("a cat on the sofa, frame 1") == true, "\(h)")
        for (name, value) in h { XCTAssertTrue(value.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 }, "\(name): \(value)") }
        XCTAssertEqual([UInt8](request.body.prefix(3)), [0xFF, 0xD8, 0xFF], "the body is the snapshot's JPEG")
        let snapshot = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: path("snaps")).first)
        XCTAssertEqual(request.body, try Data(contentsOf: URL(fileURLWithPath: path("snaps/\(snapshot)"))))
        let post = try XCTUnwrap(try EventLogFile.read(path("events.jsonl")).first { $0["event"] as? String == "post" })
        XCTAssertEqual(post["status"] as? Int, 200)
        XCTAssertEqual(post["snapshot"] as? Bool, true)
    }

    /// Pushover's form (pushover.net/api): multipart/form-data with token, user, title, message,
    /// priority and url fields, and the snapshot as the `attachment` part.
    func testPushoverGetsItsFormWithTheSnapshotAttached() throws {
        let (r, requests) = try watch(
            "rules:\n  - when: a cat\n    notify:\n      url: SERVER/ok\n      service: pushover\n      priority: high\n      click: http://127.0.0.1:8470/\n"
        )
        XCTAssertEqual(r.status, 0, r.stderr)
        let request = try XCTUnwrap(requests.first, r.stderr)
        let type = try XCTUnwrap(request.headers["Content-Type"])
        let boundary = try XCTUnwrap(type.firstMatch(of: /multipart\/form-data; boundary=(\S+)/)?.1, type)
        var fields: [String: Data] = [:]
        let body = request.body
        for chunk in body.split(separator: Data("--\(boundary)".utf8)) {
            guard let head = chunk.range(of: Data("\r\n\r\n".utf8)) else { continue }
            let header = String(decoding: chunk[chunk.startIndex..<head.lowerBound], as: UTF8.self)
            guard let name = header.firstMatch(of: /name="([^"]+)"/)?.1 else { continue }
            fields[String(name)] = Data(chunk[head.upperBound...].dropLast(2)) // the CRLF before the next boundary
        }
        func text(_ name: String) -> String? { fields[name].map { String(decoding: $0, as: UTF8.self) } }
        XCTAssertEqual(text("token"), "tk_lookd_test")
        XCTAssertEqual(text("user"), "u_lookd_test")
        XCTAssertEqual(text("title"), "a cat")
        XCTAssertEqual(text("message"), "a cat, frame 1")
        XCTAssertEqual(text("priority"), "1", "high is Pushover's 1")
        XCTAssertEqual(text("url"), "http://127.0.0.1:8470/")
        let snapshot = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: path("snaps")).first)
        XCTAssertEqual(fields["attachment"], try Data(contentsOf: URL(fileURLWithPath: path("snaps/\(snapshot)"))))
        // Without a url, a Pushover rule posts to Pushover's own endpoint.
        let file = try writeRules("settings:\n  snapshots: \(path("snaps"))\nrules:\n  - when: a cat\n    notify:\n      service: pushover\n")
        let check = try Subprocess.run(Fixtures.lookd, ["check", file])
        XCTAssertTrue(check.stdout.contains("notify:https://api.pushover.net/*** (pushover, with the snapshot"), check.stdout + check.stderr)
    }

    /// Without a click of its own, a tap on the notification opens the page's review of the fires.
    func testWithThePageOnATapOpensItsHistory() throws {
        let port = LoopbackPort.free()
        let (r, requests) = try watch("rules:\n  - when: a cat\n    notify: SERVER/ok\n", extra: ["--http", "127.0.0.1:\(port)"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try XCTUnwrap(requests.first, r.stderr).headers["Click"], "http://127.0.0.1:\(port)/history")
        let (_, without) = try watch("rules:\n  - when: a cat\n    notify: SERVER/ok\n")
        XCTAssertNil(try XCTUnwrap(without.first).headers["Click"], "no page, no link")
    }

    private func writeRules(_ text: String) throws -> String {
        try text.write(toFile: path("check.yaml"), atomically: true, encoding: .utf8)
        return path("check.yaml")
    }

    func testWithoutAPictureTheMessageIsTheBodyAndGotifyGetsItsJSON() throws {
        var (r, requests) = try watch("rules:\n  - when: a cat\n    notify:\n      url: SERVER/ok\n      picture: false\n", snapshots: false)
        XCTAssertEqual(r.status, 0, r.stderr)
        var request = try XCTUnwrap(requests.first, r.stderr)
        XCTAssertEqual(request.headers["Title"], "a cat")
        XCTAssertNil(request.headers["Filename"])
        XCTAssertEqual(String(decoding: request.body, as: UTF8.self), "a cat, frame 1")

        (r, requests) = try watch("rules:\n  - when: a cat\n    notify:\n      url: SERVER/ok\n      service: gotify\n      priority: urgent\n")
        XCTAssertEqual(r.status, 0, r.stderr)
        request = try XCTUnwrap(requests.first, r.stderr)
        XCTAssertEqual(request.headers["X-Gotify-Key"], "tk_lookd_test")
        XCTAssertEqual(request.headers["Content-Type"], "application/json")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        XCTAssertEqual(json["title"] as? String, "a cat")
        XCTAssertEqual(json["message"] as? String, "a cat, frame 1")
        XCTAssertEqual(json["priority"] as? Int, 10)
    }

    /// Without --snapshots the notification's picture is taken for it (not the rule refused).
    func testANotifyWithoutSnapshotsTakesItsPictureAndBadValuesNameTheirPlace() throws {
        let (r, requests) = try watch("rules:\n  - when: a cat\n    notify: SERVER/ok\n", snapshots: false)
        XCTAssertEqual(r.status, 0, r.stderr)
        let request = try XCTUnwrap(requests.first, r.stderr)
        XCTAssertEqual(request.body.prefix(2), Data([0xFF, 0xD8]), "the fire's snapshot, a JPEG, is the body")
        let cases = [
            ("    notify:\n      url: https://ntfy.sh/door\n      priority: loud\n", "r.yaml:5:17: notify: priority: is min, low, default, high"),
            ("    notify: https://ntfy.sh\n", "r.yaml:3:13: notify: https://ntfy.sh names no topic"),
            ("    notify:\n      url: ftp://x/door\n", "r.yaml:4:12: notify: needs an http:// or https:// URL"),
            ("    notify:\n      topic: door\n", "r.yaml:4:14: notify: unknown key \"topic\""),
            ("    notify: https://ntfy.sh:99999/door\n", "r.yaml:3:13: notify: the URL names port 99999; a port is 1 to 65535"),
        ]
        for (text, expected) in cases {
            let file = path("r.yaml")
            try ("rules:\n  - when: a cat\n" + text).write(toFile: file, atomically: true, encoding: .utf8)
            let check = try Subprocess.run(Fixtures.lookd, ["check", file])
            XCTAssertEqual(check.status, 2, text)
            XCTAssertTrue(check.stderr.contains(expected.replacingOccurrences(of: "r.yaml", with: file)), check.stderr)
        }
        // Without --snapshots, the picture is taken for it (snapshots/ in the record folder), not refused.
        let unseen = try Subprocess.run(Fixtures.lookd, ["check", "a cat=notify:https://ntfy.example.com/door", "--record", path("rec")])
        XCTAssertEqual(unseen.status, 0, unseen.stderr)
        XCTAssertTrue(unseen.stdout.contains(" snapshots            \(path("rec"))/snapshots"), unseen.stdout)
        let inline = try Subprocess.run(
            Fixtures.lookd, ["check", "a cat=notify:https://u:hunter2@ntfy.example.com/door", "--snapshots", path("snaps")])
        XCTAssertEqual(inline.status, 0, inline.stderr)
        // The topic is a capability: masked with the password.
        XCTAssertTrue(inline.stdout.contains("a cat → notify:https://u:***@ntfy.example.com/*** (ntfy, with the snapshot)"), inline.stdout)
        XCTAssertFalse(inline.stdout.contains("door") || inline.stdout.contains("hunter2"), inline.stdout)
    }
}
