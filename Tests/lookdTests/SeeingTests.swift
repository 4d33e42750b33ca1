import Foundation
import TestFixtures
import TestSupport
import XCTest

/// shapes-tiny, the model trained here on the shapes world (models/shapes-tiny, docs/engines.md),
/// through the real engine on the example clip (examples/shapes.mp4, whose truth is known by
/// construction): what a user sees when lookd runs a model that sees, not just that some answer came.
///
/// The committed model does, today, precision 100 % and recall 97 % of yes over the clip's 180
/// answers, 6 true fires, none false, each within 0.3 s; recall and false fires are held to issue
/// 38's bar (0.95, none), the rest to floors a blind model, or a pipeline that shows it the wrong
/// picture, falls far below. docs/engines.md gives its figures.
final class SeeingTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    private func example(_ name: String) -> String { Fixtures.root.appendingPathComponent("examples/\(name)").path }
    /// The model cache of this test alone: `--model shapes-tiny` copies the pair from the checkout into it.
    private var environment: [String: String] { ["LOOKD_MODELS": path("models"), "GGML_NO_BACKTRACE": "1"] }

    private func json(_ file: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
    }

    func testOnTheExampleClipItSaysYesToWhatIsThereDescribesItsThingAndTuneFindsNothingToChangeOrSaysWhy() throws {
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "eval", "--source", example("shapes.mp4"), "--rules", example("shapes.yaml"), "--truth", example("shapes.truth.yaml"),
                "--model", "shapes-tiny", "--record", dir.path, "--json", path("eval.json"),
            ], environment: environment)
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try json(path("eval.json"))
        XCTAssertEqual(report["frames"] as? Int, 30, "a frame a second of 30")
        let overall = try XCTUnwrap(report["overall"] as? [String: Any])
        XCTAssertEqual(overall["answered"] as? Int, 180, "6 rules on 30 frames, every answer read")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(overall["precision"] as? Double), 0.75, "\(overall)")
        // Issue 38's bar for eval on this clip: recall of yes at least 0.95, and no false fire.
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(overall["recall"] as? Double), 0.95, "\(overall)")
        XCTAssertEqual(overall["false_fires"] as? Int, 0, "\(overall)")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(overall["true_fires"] as? Int), 4, "\(overall)")
        // Each thing's rule fires within one answered frame of its entrance (eval asks a frame a second).
        XCTAssertEqual(overall["missed_spans"] as? Int, 0, "\(overall)")
        XCTAssertLessThanOrEqual(try XCTUnwrap(overall["worst_delay_s"] as? Double), 1.0, "\(overall)")

        let rules = try XCTUnwrap(report["rules"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: rules.map { ($0["condition"] as? String ?? "", $0) })
        // The white star never comes: never a yes, never a fire.
        let star = try XCTUnwrap(byName["a white star"])
        XCTAssertEqual(star["false_positive"] as? Int, 0, "\(star)")
        XCTAssertEqual(star["false_fires"] as? Int, 0, "\(star)")
        // The green triangle's rule describes what it saw: its own thing, and no thing that was not in
        // view at that moment (the clip's truth: the yellow star leaves 1.6 s after the triangle comes).
        let triangle = try XCTUnwrap(byName["a green triangle"])
        let description = try XCTUnwrap((triangle["descriptions"] as? [[String: Any]])?.first)
        let said = try XCTUnwrap(description["text"] as? String)
        let t = try XCTUnwrap(description["t"] as? Double)
        let named = things(in: said)
        XCTAssertTrue(named.contains("green triangle"), said)
        let inView = try truth().filter { $0.value.contains { $0.contains(t) } }.keys
        for thing in named {
            XCTAssertTrue(inView.contains("a \(thing)"), "at \(t) s it names a \(thing), which is not in view (\(inView.sorted())): \(said)")
        }

        // Tune on the run's record: it finds nothing to improve, or says for each rule what it would
        // change and what that would score.
        let record = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasPrefix("watch-run-") })
        let tune = try Subprocess.run(
            Fixtures.lookd,
            ["tune", "--record", path(record), "--truth", example("shapes.truth.yaml"), "--rules", example("shapes.yaml")])
        XCTAssertEqual(tune.status, 0, tune.stderr)
        XCTAssertEqual(tune.stdout.components(separatedBy: "\n  now:  ").count - 1, 6, "a line a rule: \(tune.stdout)")
        if !tune.stdout.contains("Nothing to change: every rule's own settings score best on this recording.") {
            XCTAssertTrue(tune.stdout.contains("The settings to put under each rule's when:"), tune.stdout)
            XCTAssertTrue(tune.stdout.contains("\n  #1:   "), "what a change would score: \(tune.stdout)")
        }
    }

    /// The things a sentence names ("a yellow star and a green triangle" → yellow star, green triangle).
    private func things(in sentence: String) -> Set<String> {
        let colours: Set = ["red", "green", "blue", "yellow", "white"]
        let shapes: Set = ["ball", "square", "triangle", "star"]
        let words = sentence.lowercased().split { !$0.isLetter }.map(String.init)
        return Set(
            zip(words, words.dropFirst()).compactMap { colour, shape in
                let one = shape.hasSuffix("s") ? String(shape.dropLast()) : shape
                return colours.contains(colour) && shapes.contains(one) ? "\(colour) \(one)" : nil
            })
    }

    /// The example clip's truth file: each thing's spans in view, in seconds.
    private func truth() throws -> [String: [ClosedRange<Double>]] {
        var spans: [String: [ClosedRange<Double>]] = [:]
        var thing = ""
        for line in try String(contentsOfFile: example("shapes.truth.yaml"), encoding: .utf8).split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("- when: ") { thing = String(text.dropFirst("- when: ".count)) }
            guard text.hasPrefix("spans: ") else { continue }
            spans[thing] = text.split(separator: "\"").filter { $0.contains("-") && $0.contains(":") }.compactMap { span in
                let ends = span.split(separator: "-").map { end in
                    end.split(separator: ":").reduce(0.0) { $0 * 60 + (Double($1) ?? .nan) }
                }
                return ends.count == 2 && ends[0] <= ends[1] ? ends[0]...ends[1] : nil
            }
        }
        return spans
    }

    /// The change gate skips a picture that holds still, and asks the model again at the first frame
    /// that changed: the red ball's entrance, which fires there.
    func testTheChangeGateAsksTheModelWhenAThingComesIn() throws {
        // The clip's first picture (an empty background) held for 8 s; the red ball then comes in at 9.7 s.
        try Subprocess.shell(
            "ffmpeg -v error -y -i '\(example("shapes.mp4"))' -vf tpad=start_mode=clone:start_duration=8 -c:v libx264 -pix_fmt yuv420p '\(path("held.mp4"))'"
        )
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", path("held.mp4"), "--rules", example("shapes.yaml"), "--model", "shapes-tiny", "--pace", "frames",
                "--gate", "on", "--no-sound", "--record", dir.path,
            ], environment: environment)
        XCTAssertEqual(r.status, 0, r.stderr)
        let record = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasPrefix("watch-run-") })
        let frames = try XCTUnwrap(try json(path(record))["frames"] as? [[String: Any]])
        XCTAssertGreaterThan(frames.count, 2)
        XCTAssertEqual(frames[0]["asked"] as? String, "first")
        let entrance = frames[1]
        XCTAssertEqual(entrance["source_t"] as? Double, 10, "the first frame after the red ball came in (9.7 s): \(entrance)")
        XCTAssertEqual(entrance["asked"] as? String, "changed")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(entrance["skipped"] as? Int), 8, "the still seconds were not asked")
        XCTAssertEqual(entrance["fired"] as? [Int], [1], "the red ball's rule, the first: \(entrance)")
    }
}
