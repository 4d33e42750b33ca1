import Foundation
import TestFixtures
import TestSupport
import XCTest

/// shapes-tiny, the model trained here on the shapes world (models/shapes-tiny, docs/engines.md),
/// through the real engine on the example clip (examples/shapes.mp4, whose truth is known by
/// construction): what a user sees when lookd runs a model that sees, not just that some answer came.
///
/// The floors below guard what the committed model does today (precision 83 % and recall 77 % of yes
/// over the clip's 180 answers); a blind model, or a pipeline that shows it the wrong picture, falls
/// far below them. They are not the issue's bars (recall of spans at least 0.95 and no false fire),
/// which the model does not yet meet: docs/engines.md gives its figures.
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

    func testOnTheExampleClipItSaysYesToWhatIsThereAndDescribesItsThing() throws {
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
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(overall["recall"] as? Double), 0.7, "\(overall)")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(overall["true_fires"] as? Int), 4, "\(overall)")

        let rules = try XCTUnwrap(report["rules"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: rules.map { ($0["condition"] as? String ?? "", $0) })
        // The white star never comes: never a yes, never a fire.
        let star = try XCTUnwrap(byName["a white star"])
        XCTAssertEqual(star["false_positive"] as? Int, 0, "\(star)")
        XCTAssertEqual(star["false_fires"] as? Int, 0, "\(star)")
        // The green triangle's rule describes what it saw: its colour and shape, and no other thing.
        let triangle = try XCTUnwrap(byName["a green triangle"])
        let said = try XCTUnwrap((triangle["descriptions"] as? [[String: Any]])?.first?["text"] as? String).lowercased()
        XCTAssertTrue(said.contains("green triangle"), said)
        for other in ["red", "blue", "yellow", "white", "ball", "square", "star"] {
            XCTAssertFalse(said.contains(other), "names \(other), which is not there: \(said)")
        }
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
