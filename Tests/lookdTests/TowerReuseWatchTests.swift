import Foundation
import TestFixtures
import TestSupport
import XCTest

/// `lookd watch --reuse` on shapes-tiny over the committed example clip (things come in, cross and
/// leave): the answers with reuse are those without on at least 98 % of frames (the bar),
/// and most frames computed only part of the tower.
final class TowerReuseWatchTests: XCTestCase {
    private func frames(_ reuse: String, in dir: URL) throws -> [[String: Any]] {
        let record = dir.appendingPathComponent(reuse).path
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", Fixtures.root.appendingPathComponent("examples/shapes.mp4").path, "--model", "shapes-tiny", "--pace", "frames",
                "--rules", Fixtures.root.appendingPathComponent("examples/shapes.yaml").path, "--reuse", reuse, "--record", record, "--no-sound",
                "--gate", "off", "--hold", "0",
            ], environment: ["GGML_NO_BACKTRACE": "1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try EventLogFile.read(record + "/lookd-events.jsonl").filter { $0["event"] as? String == "watch" }
    }

    func testAnswersWithReuseAreThoseWithout() throws {
        let dir = try Fixtures.scratch()
        let (on, off) = (try frames("on", in: dir), try frames("off", in: dir))
        XCTAssertEqual(on.count, off.count)
        XCTAssertGreaterThan(on.count, 20)
        let same = zip(on, off).filter { ($0["answers"] as? [String]) == ($1["answers"] as? [String]) }.count
        XCTAssertGreaterThanOrEqual(Double(same), 0.98 * Double(on.count), "\(same) of \(on.count) frames answered alike")
        let towers = on.compactMap { $0["tower"] as? [Int] }
        XCTAssertEqual(towers.count, on.count, "every frame says its tower's tokens")
        XCTAssertEqual(towers.first?[0], towers.first?[1], "the first frame is encoded whole")
        let partial = towers.filter { $0[0] < $0[1] / 2 }.count
        XCTAssertGreaterThan(partial, on.count / 2, "most frames computed under half the tower: \(towers)")
        XCTAssertTrue(off.allSatisfy { $0["tower"] is NSNull }, "--reuse off keeps nothing")
    }
}
