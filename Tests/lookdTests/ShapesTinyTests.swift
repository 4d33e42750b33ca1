import Foundation
import TestSupport
import XCTest

/// shapes-tiny, lookd's own tiny MiniCPM-V 4.7 that sees (models/shapes-tiny, trained by
/// tools/train-shapes-tiny), through the real engine on the example clip of its world
/// (examples/shapes.mp4, whose truth and boxes the generator wrote): behaviour, not just plumbing.
final class ShapesTinyTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    private func example(_ name: String) -> String { Fixtures.root.appendingPathComponent("examples/\(name)").path }
    /// The clip is stepped every half second of video.
    private let every = 0.5

    private func eval(_ more: [String] = []) throws -> (json: [String: Any], events: [[String: Any]], run: Subprocess) {
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "eval", "--source", example("shapes.mp4"), "--rules", example("shapes.yaml"), "--truth", example("shapes.truth.yaml"),
                "--model", "shapes-tiny", "--pace", "frames", "--every", "\(every)", "--record", dir.path, "--log", path("events.jsonl"),
                "--json", path("eval.json"),
            ] + more)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("eval.json")))) as? [String: Any])
        return (json, try EventLogFile.read(path("events.jsonl")), r)
    }

    /// Every thing fires within one answered frame of coming into view, and nothing fires while it
    /// is away; eval's recall is at least 0.95; the ripple's box is on the thing; the description
    /// names the thing; tune finds nothing to improve.
    func testTheExampleClipFiresRightBoxesRightAndDescribesRight() throws {
        let (json, events, r) = try eval()
        XCTAssertEqual(r.status, 0, r.stderr)
        let rules = try XCTUnwrap(json["rules"] as? [[String: Any]])
        XCTAssertEqual(rules.count, 6)
        for rule in rules {
            let name = rule["condition"] as? String ?? "?"
            XCTAssertEqual(rule["false_fires"] as? Int, 0, "\(name): no fire while it is away")
            XCTAssertEqual(rule["missed_spans"] as? Int, 0, "\(name): every coming fires")
            for delay in rule["delays_s"] as? [Double] ?? [] {
                XCTAssertLessThanOrEqual(delay, 2 * every + 1e-6, "\(name): fires within one answered frame of coming in")
            }
            if (rule["spans"] as? Int ?? 0) > 0 {
                XCTAssertGreaterThanOrEqual(rule["recall"] as? Double ?? 0, 0.95, "\(name): recall of its yes")
            }
        }
        // The ripple's box against the generator's box of the red ball on the held frame.
        let boxes = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: example("shapes.boxes.json")))) as? [String: Any])
        let frames = try XCTUnwrap(boxes["frames"] as? [[String: Any]])
        let (w, h) = (448.0, 252.0)
        let watchTimes = Dictionary(
            events.filter { $0["event"] as? String == "watch" }.compactMap { e in (e["frame"] as? Int).map { ($0, e["source_t"] as? Double ?? -1) } },
            uniquingKeysWith: { a, _ in a })
        let ripples = events.filter { $0["event"] as? String == "fire" && $0["effect"] as? String == "ripple" }
        XCTAssertEqual(ripples.count, 2, "the red ball comes twice")
        for fire in ripples {
            let box = try XCTUnwrap(fire["box"] as? [Int], "\(fire)").map(Double.init)
            let t = try XCTUnwrap(watchTimes[fire["frame"] as? Int ?? -1])
            let shown = try XCTUnwrap(frames.first { abs(($0["t"] as? Double ?? -9) - t) < 0.01 }?["things"] as? [[String: Any]])
            let ball = try XCTUnwrap(shown.first { $0["phrase"] as? String == "a red ball" }?["box"] as? [Double], "\(shown)")
            let truth = [ball[0] / w * 1000, ball[1] / h * 1000, ball[2] / w * 1000, ball[3] / h * 1000]
            XCTAssertGreaterThanOrEqual(Self.iou(box, truth), 0.5, "the ripple's box \(box) against the red ball's \(truth) at \(t) s")
        }
        let described = try XCTUnwrap(events.first { $0["event"] as? String == "described" })
        let sentence = (described["description"] as? String ?? "").lowercased()
        XCTAssertTrue(sentence.contains("green triangle"), "the description names the thing's colour and shape: \(sentence)")
        let record = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasPrefix("watch-run-") })
        let tune = try Subprocess.run(
            Fixtures.lookd, ["tune", "--record", path(record), "--truth", example("shapes.truth.yaml"), "--rules", example("shapes.yaml")])
        XCTAssertEqual(tune.status, 0, tune.stderr)
        XCTAssertTrue(tune.stdout.contains("Nothing to change"), tune.stdout)
    }

    /// With the change gate on, the model is still asked when a thing comes in: no coming is missed.
    func testTheGateStillAsksWhenAThingComesIn() throws {
        let (json, _, r) = try eval(["--gate", "on"])
        XCTAssertEqual(r.status, 0, r.stderr)
        for rule in try XCTUnwrap(json["rules"] as? [[String: Any]]) {
            XCTAssertEqual(rule["missed_spans"] as? Int, 0, "\(rule["condition"] ?? "?")")
            XCTAssertEqual(rule["false_fires"] as? Int, 0, "\(rule["condition"] ?? "?")")
        }
    }

    /// `lookd ask` on a still of the world: the right colour and count.
    func testAskAnswersAboutAStillOfItsWorld() throws {
        let frame = path("frame.png")
        _ = try Subprocess.run("/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-ss", "6", "-i", example("shapes.mp4"), "-frames:v", "1", frame])
        let colour = try Subprocess.run(Fixtures.lookd, ["ask", frame, "What colour is the square?", "--model", "shapes-tiny"])
        XCTAssertEqual(colour.status, 0, colour.stderr)
        XCTAssertTrue(colour.stdout.lowercased().contains("blue"), colour.stdout)
        let count = try Subprocess.run(Fixtures.lookd, ["ask", frame, "How many things are there?", "--model", "shapes-tiny"])
        XCTAssertTrue(count.stdout.lowercased().contains("two"), count.stdout)
    }

    static func iou(_ a: [Double], _ b: [Double]) -> Double {
        let w = max(0, min(a[2], b[2]) - max(a[0], b[0])), h = max(0, min(a[3], b[3]) - max(a[1], b[1]))
        let union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
        return union > 0 ? w * h / union : 0
    }
}
