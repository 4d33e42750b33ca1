import Foundation
import TestSupport
import XCTest

/// Rules that could never be answered are found before a run: the answer budget grows with the
/// rules, and a question that does not fit the context is refused with the --context to use.
final class BudgetTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    private let env = ["GGML_NO_BACKTRACE": "1"]

    private func rules(_ count: Int) throws -> String {
        let file = path("rules-\(count).yaml")
        let text = "rules:\n" + (0..<count).map { "  - when: thing number \($0) in the picture\n    log: true\n" }.joined()
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    private func watch(_ rules: String, _ more: [String] = []) throws -> Subprocess {
        let clip = path("clip.mp4")
        if !FileManager.default.fileExists(atPath: clip) { try TestMedia.clip(clip, seconds: 1, fps: 5) }
        return try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", clip, "--rules", rules, "--model", Fixtures.model, "--mmproj", Fixtures.mmproj, "--pace", "frames",
                "--no-sound", "--record", path("out"),
            ] + more, environment: env)
    }

    func testAWatchWhoseRulesDoNotFitTheContextIsRefusedWithTheContextToUse() throws {
        let r = try watch(try rules(120), ["--context", "1024"])
        XCTAssertEqual(r.status, 2, r.stderr)
        let sentence = try XCTUnwrap(r.stderr.split(separator: "\n").last.map(String.init))
        XCTAssertNotNil(
            sentence.range(
                of:
                    #"120 rules need \d+ tokens a frame \(\d+ of question and picture, 488 of answer\), more than the model's context of 1024; use --context \d+"#,
                options: .regularExpression), sentence)
        // The --context it names is enough.
        let suggested = try XCTUnwrap(sentence.split(separator: " ").last { Int($0.trimmingCharacters(in: .punctuationCharacters)) != nil })
        let context = try XCTUnwrap(Int(suggested.trimmingCharacters(in: .punctuationCharacters)))
        let again = try watch(try rules(120), ["--context", String(context), "--seconds", "0.5"])
        XCTAssertFalse(again.stderr.contains("more than the model's context"), again.stderr)
    }

    func testTheAnswerBudgetGrowsWithTheRulesAndASmallTokensIsWarned() throws {
        var r = try watch(try rules(20))
        XCTAssertEqual(r.status, 0, r.stderr)
        let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: path("out")).first { $0.hasPrefix("watch-run-") })
        let record = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("out/" + name)))) as? [String: Any])
        XCTAssertEqual((record["settings"] as? [String: Any])?["tokens"] as? Int, 88, "4 a rule and 8 more")
        // Every setting in force, from the declarations, as lookd check lists it.
        let inForce = try XCTUnwrap(record["settings_in_force"] as? [[String: Any]])
        let check = try Subprocess.run(
            Fixtures.lookd, ["check", try rules(20), "--source", path("clip.mp4"), "--pace", "frames", "--no-sound", "--json"], environment: env)
        let checked = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any])?["settings"] as? [[String: Any]])
        XCTAssertEqual(inForce.compactMap { $0["name"] as? String }, checked.compactMap { $0["name"] as? String })
        XCTAssertGreaterThan(inForce.count, 40)
        let pace = try XCTUnwrap(inForce.first { $0["name"] as? String == "pace" })
        XCTAssertEqual(pace["value"] as? String, "frames")
        XCTAssertEqual(pace["from"] as? String, "flag")
        r = try watch(try rules(20), ["--tokens", "32"])
        XCTAssertTrue(r.stderr.contains("--tokens 32 leaves room to answer about 6 of the 20 rules"), r.stderr)
    }

    func testCheckEstimatesTheBudgetWithoutAModel() throws {
        var r = try Subprocess.run(Fixtures.lookd, ["check", try rules(20)], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("tokens of question and picture and 88 of answer; the context is 4096."), r.stdout)
        r = try Subprocess.run(Fixtures.lookd, ["check", try rules(1000)], environment: env)
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("1000 rules need about"), r.stderr)
        r = try Subprocess.run(Fixtures.lookd, ["check", try rules(1000), "--context", "32768"], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    func testAnAnswerStopsWholeWhereTheContextIsFull() throws {
        let json = path("ask.json")
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "ask", Fixtures.root.appendingPathComponent("examples/testcard.jpg").path, "Describe it", "--tokens", "8192", "--context", "512",
                "--model", Fixtures.model, "--mmproj", Fixtures.mmproj, "--json", json,
            ], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("The answer stopped where the context was full"), r.stderr)
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        XCTAssertEqual(record["stop"] as? String, "context")
        XCTAssertEqual((record["input_tokens"] as! Int) + (record["output_tokens"] as! Int), 511)
    }
}
