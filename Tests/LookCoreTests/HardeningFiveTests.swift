import Foundation
import LookCore
import Platform
import ReactionDomain
import TestSupport
import XCTest

/// The fifth hardening round's LookCore classes: no write under another user's link anywhere on a
/// path, outbound URLs shown by where they are and not by their shape, no open that waits on a pipe,
/// no append to a hard link.
final class HardeningFiveTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    /// `theirs` → `victim/`, a folder link another user owns: nothing is made or written under it,
    /// by any writer, and the refusal names the link.
    private func theirLink() throws -> (link: String, victim: String) {
        let victim = path("victim")
        try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path("theirs"), withDestinationPath: victim)
        XCTAssertEqual(lchown(path("theirs"), 1001, 1001), 0, "the tests run as root and give the link away")
        return (path("theirs"), victim)
    }

    func testAnotherUsersLinkAnywhereOnThePathIsRefusedByEveryWriter() throws {
        let (link, victim) = try theirLink()
        let deep = link + "/records/run"
        XCTAssertThrowsError(try SafeFile.write("x\n", to: link + "/watch-run-1.json")) { error in
            XCTAssertTrue("\(error)".contains("\(link) on its path is a symbolic link owned by another user (uid 1001)"), "\(error)")
        }
        XCTAssertThrowsError(try SafeFile.openForAppend(link + "/lookd-events.jsonl"))
        XCTAssertThrowsError(try SafeFile.claim(in: link, stem: "fire-1", ext: "jpg"))
        XCTAssertThrowsError(try SafeFile.write("x\n", to: deep + "/status.json"))
        let problem = try XCTUnwrap(WritableFolder.problem(deep, what: "record folder"))
        XCTAssertTrue(problem.contains("owned by another user"), problem)
        XCTAssertNotNil(PrivateFolder.problem(link + "/clips"))
        XCTAssertNotNil(SafePath.problem(link + "/../theirs/x", what: "frames folder"), "a way round through .. meets the link too")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: victim), [], "nothing landed in their folder")
        // Our own links (root's, here), on the path or at its end, are followed as before.
        try FileManager.default.createDirectory(atPath: path("real"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path("mine"), withDestinationPath: path("real"))
        XCTAssertNil(WritableFolder.problem(path("mine") + "/a/b", what: "record folder"))
        XCTAssertNoThrow(try SafeFile.write("y\n", to: path("mine") + "/a/b/status.json"))
        XCTAssertTrue(exists(path("real") + "/a/b/status.json"))
        // A link of ours that leads through theirs is theirs too.
        try FileManager.default.createSymbolicLink(atPath: path("via"), withDestinationPath: link + "/sub")
        XCTAssertThrowsError(try SafeFile.write("z\n", to: path("via") + "/f"))
    }

    func testALinkLoopIsRefusedNotFollowedForever() throws {
        try FileManager.default.createSymbolicLink(atPath: path("a"), withDestinationPath: path("b"))
        try FileManager.default.createSymbolicLink(atPath: path("b"), withDestinationPath: path("a"))
        XCTAssertThrowsError(try SafePath.check(path("a") + "/x")) { XCTAssertTrue("\($0)".contains("loop"), "\($0)") }
    }

    func testAFileWithHardLinksIsNeverAppendedTo() throws {
        try "theirs\n".write(toFile: path("target"), atomically: false, encoding: .utf8)
        XCTAssertEqual(link(path("target"), path("lookd-events.jsonl")), 0)
        XCTAssertThrowsError(try SafeFile.openForAppend(path("lookd-events.jsonl"))) { XCTAssertTrue("\($0)".contains("2 hard links"), "\($0)") }
        XCTAssertEqual(try String(contentsOfFile: path("target"), encoding: .utf8), "theirs\n")
        // Written whole (a status file), a hard link is replaced by a file of lookd's own: the other name keeps its bytes.
        try SafeFile.write("status\n", to: path("lookd-events.jsonl"))
        XCTAssertEqual(try String(contentsOfFile: path("target"), encoding: .utf8), "theirs\n")
    }

    func testAPipeWithNoReaderOrWriterIsNeverWaitedOn() throws {
        XCTAssertEqual(mkfifo(path("fifo"), 0o644), 0)
        let started = Date()
        XCTAssertThrowsError(try SafeFile.write("x\n", to: path("fifo"))) { XCTAssertTrue("\($0)".contains("a pipe that nothing reads"), "\($0)") }
        XCTAssertThrowsError(try SafeFile.openForAppend(path("fifo")))
        // Read (a rules file, a reload): a FIFO with no writer reads as empty at once.
        guard case .success(let bytes) = SmallInput.read(path("fifo"), limit: 1024) else { return XCTFail("an empty read") }
        XCTAssertEqual(bytes, [])
        // Each write gives a reader 2 s to come, and no more.
        XCTAssertLessThan(Date().timeIntervalSince(started), 5.5, "no open waited without end")
    }

    /// A webhook's token, a bot's key, a webhook id or an ntfy topic are where they are: the path
    /// and query of an outbound URL, whatever they look like.
    func testOutboundURLsShowSchemeHostAndPortOnly() {
        let cases = [
            ("https://discord.com/api/webhooks/1234567890/a-b_c-d_e-f_g-h_i-j_k-l_m-n_o-p", "https://discord.com/***"),
            ("https://api.telegram.org/bot123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11/sendPhoto", "https://api.telegram.org/***"),
            ("http://ha.local:8123/api/webhook/\(String(repeating: "ab12", count: 16))", "http://ha.local:8123/***"),
            ("https://example.com/hook?hmac=0123456789abcdef", "https://example.com/***"),
            ("https://ntfy.sh/my-door-1f9c", "https://ntfy.sh/***"),
            ("https://user:pw@hooks.example.net:8443/x", "https://user:***@hooks.example.net:8443/***"),
            ("http://[::1]:8080/v1", "http://[::1]:8080/***"),
            ("http://gpu-box:8080", "http://gpu-box:8080"),
        ]
        for (raw, want) in cases { XCTAssertEqual(Secrets.outbound(url: raw), want, raw) }
    }

    /// Once known as outbound, a URL is masked in whatever text quotes it (a library's error message).
    func testAKnownOutboundURLIsMaskedWhereverItIsQuoted() {
        let url = "https://hooks.example.org/services/telegram-bot42:pass_word-with-dashes"
        Secrets.registerOutbound(url)
        XCTAssertEqual(Secrets.maskedPasswords(in: "post to \(url) failed: timeout"), "post to https://hooks.example.org/*** failed: timeout")
        let spelled = "https://HOOKS.example.org:443/services/telegram-bot42:pass_word-with-dashes"
        XCTAssertFalse(Secrets.maskedPasswords(in: "curl: \(spelled)").contains("pass_word"), "the same URL spelled with its port")
        XCTAssertFalse(JSON.object([("error", .string("curl: \(url)?x=1"))]).text().contains("pass_word"))
    }

    /// The start line's command line: `--engine` and `--mqtt` are outbound URLs before any engine is made.
    func testTheCommandLineShowsOutboundOptionsAsOutbound() {
        let words = [
            "watch", "--engine", "https://gpu.example:8443/v1/sk-Secret_Path-123", "--mqtt=mqtt://bob:pw@broker/t0p", "--source", "rtsp://cam/1",
        ]
        XCTAssertEqual(
            Secrets.masked(arguments: words),
            ["watch", "--engine", "https://gpu.example:8443/***", "--mqtt=mqtt://bob:***@broker/***", "--source", "rtsp://cam/1"])
    }

    func testAnOutboundReactionIsShownMaskedUnlessItsRuleSaysShowURL() {
        let url = "https://discord.com/api/webhooks/1/a-b_c-d_e-f_g"
        var post = Reaction.post(Post(url: url))
        XCTAssertEqual(post.shownForm, "post:https://discord.com/***")
        XCTAssertTrue(post.checkedForm.hasPrefix("post:https://discord.com/*** ("), post.checkedForm)
        XCTAssertEqual("\(post)", "post:https://discord.com/***", "a reaction interpolated into a message is masked too")
        post.showsURL = true
        XCTAssertEqual(post.shownForm, "post:\(url)")
        let run = Reaction.run(Command(arguments: ["curl", "-d", "x", "https://user:pw@api.example.com/t0k3n"], executable: "/usr/bin/curl"))
        XCTAssertEqual(run.shownForm, "run:curl -d x https://user:***@api.example.com/***")
        XCTAssertFalse(run.checkedForm.contains("pw"), run.checkedForm)
    }
}

/// Hardening 6: a secret is masked whatever it is called and wherever it stands.
final class HardeningSixSecretsTests: XCTestCase {
    func testACommandsSecretLookingArgumentsAreMasked() {
        let argv = [
            "/usr/bin/curl", "--password=hunter2", "-H", "Authorization: Bearer abc.def", "-H", "X-Api-Key: k1", "--token", "t0k",
            "-u", "me:pw", "https://TOKEN123@hooks.example.com/x?sig=1", "Bearer", "zzz", "keep=me", "plain", "api_key=v",
            "aB3dE5gH7jK9mN1pQ3sT5",
        ]
        let shown = Secrets.masked(commandArguments: argv)
        XCTAssertEqual(
            shown,
            [
                "/usr/bin/curl", "--password=***", "-H", "Authorization: ***", "-H", "X-Api-Key: ***", "--token", "***", "-u", "***",
                "https://***@hooks.example.com/***", "Bearer", "***", "keep=me", "plain", "api_key=***", "***",
            ])
        for secret in ["hunter2", "abc.def", "k1", "t0k", "pw", "TOKEN123", "zzz", "aB3dE5gH7jK9mN1pQ3sT5"] {
            XCTAssertFalse(shown.joined(separator: " ").contains(secret), secret)
        }
    }

    func testACommandGetsNoSettingOfLookdsNorASecretNamedVariable() {
        for name in [
            "LOOKD_ENGINE", "LOOKD_NOTIFY_USER", "LOOKD_HTTP_TOKEN", "HF_TOKEN", "GITHUB_TOKEN", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY",
            "OPENAI_API_KEY",
        ] {
            XCTAssertFalse(Secrets.isPassedOn(environment: name), name)
        }
        for name in ["PATH", "HOME", "LANG", "XDG_RUNTIME_DIR", "PULSE_SERVER"] { XCTAssertTrue(Secrets.isPassedOn(environment: name), name) }
    }

    /// A camera's URL known as outbound is masked whole, even where it holds a space or a comma
    /// (an SRT streamid), and a DVR's password in its path.
    func testAKnownCameraURLIsMaskedWholeWhateverItHolds() {
        let urls = [
            "rtsp://dvr.example:554/user=admin&password=Dvr5ecret&channel=1&stream=0.sdp",
            "srt://cam.example:9000?streamid=#!::r=live,m=request,u=bob,s=Srt5ecret",
            "rtsp://bob:two words@cam2.example/live",
            "http://cam3.example/snap.cgi?loginpas=Lp5ecret&pw=Pw5ecret",
        ]
        for url in urls { Secrets.registerOutbound(url) }
        for url in urls {
            let text = Secrets.maskedPasswords(in: "the stream \(url) failed: end of file")
            for secret in ["Dvr5ecret", "Srt5ecret", "two words", "Lp5ecret", "Pw5ecret", "u=bob"] {
                XCTAssertFalse(text.contains(secret), "\(secret) in \(text)")
            }
            XCTAssertTrue(text.hasPrefix("the stream ") && text.hasSuffix(" failed: end of file"), text)
        }
        XCTAssertEqual(Secrets.maskedPasswords(in: urls[0]), "rtsp://dvr.example:554/***")
    }
}
