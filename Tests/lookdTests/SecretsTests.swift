import Foundation
import TestFixtures
import TestSupport
import XCTest

/// One rule for secrets: the page's token, a post's password and a webhook's token in its URL,
/// MQTT's password and the API key are in no file lookd writes, in nothing it prints, and in no
/// `run:` command's environment.
final class SecretsTests: XCTestCase {
    func testNoSecretReachesAFileAPrintOrACommand() throws {
        let dir = try Fixtures.scratch()
        let photos = try TestMedia.photoFolder(in: dir)
        let rules = dir.appendingPathComponent("rules.yaml").path
        try """
        rules:
          - when: a test card
            post: "http://hook:Pa55wordX@127.0.0.1:9/hook?token=T0kenInUrl&room=3"
          - when: a test card
            run: [/bin/sh, -c, "env | grep -E '^(LOOKD|HF)_'"]
        """.write(toFile: rules, atomically: true, encoding: .utf8)
        let secrets = ["Pa55wordX", "T0kenInUrl", "PageT0kenX", "MqttPa55X", "ApiKeyX99"]
        let script = try Fixtures.script(["1. Yes\\n2. Yes"], in: dir)
        let run = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", photos, "--rules", rules, "--model", "script:" + script, "--photo-seconds", "0", "--no-sound",
                "--record", dir.path, "--status", dir.appendingPathComponent("status.json").path, "--seconds", "2",
                "--http", "127.0.0.1:\(LoopbackPort.free())", "--http-token", "PageT0kenX", "--post-timeout", "1",
            ],
            environment: ["LOOKD_MQTT_PASSWORD": "MqttPa55X", "LOOKD_API_KEY": "ApiKeyX99"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let check = try Subprocess.run(Fixtures.lookd, ["check", rules])
        XCTAssertEqual(check.status, 0, check.stderr)
        // An outbound URL shows its scheme, host and port: its path and query are where tokens are.
        XCTAssertTrue(check.stdout.contains("post:http://hook:***@127.0.0.1:9/*** ("), check.stdout)
        var written = run.stdout + run.stderr + check.stdout + check.stderr
        let files = try FileManager.default.subpathsOfDirectory(atPath: dir.path).filter { !$0.hasPrefix("photos") && $0 != "rules.yaml" }
        XCTAssertTrue(files.contains("lookd-events.jsonl"), "\(files)")
        for file in files { written += (try? String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)) ?? "" }
        // The command's own output (lookd's variables in its environment) is in the event log: it was read.
        XCTAssertTrue(written.contains("LOOKD_CONDITION=a test card"), "the command ran and its environment was recorded")
        for secret in secrets { XCTAssertFalse(written.contains(secret), "\(secret) was written or shown") }
        XCTAssertTrue(written.contains("\"--http-token\",\"***\""), "the start line's args mask the token")
    }
}
