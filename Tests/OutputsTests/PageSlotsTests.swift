import Foundation
import LookCore
import Records
import TestFixtures
import TestSupport
import XCTest

@testable import Outputs

/// The page's connection slots go to clients that send whole requests: half-sent requests trickled a
/// byte a second, idle connections and a crowd of event streams leave room for them.
final class PageSlotsTests: XCTestCase {
    private func siege(_ kind: String, _ count: Int, whole: Int = 40) throws -> (answered: Int, output: String) {
        let port = LoopbackPort.free()
        let page = WebOutput(listen: .init(host: "127.0.0.1", port: port), token: nil, snapshotsDir: nil, clock: MonotonicClock())
        try page.start(events: EventStream([]))
        defer { page.stop() }
        let script = Fixtures.root.appendingPathComponent("Tests/Fixtures/page_siege.py").path
        let out = try Subprocess.run("/usr/bin/env", ["python3", script, String(port), kind, String(count), String(whole)]).stdout
        print("MEASURE page siege: \(out.trimmingCharacters(in: .whitespacesAndNewlines))")
        let answered = Int(out.split(separator: " ").dropFirst().first ?? "") ?? -1
        return (answered, out)
    }

    func testHalfSentRequestsTrickledAByteASecondLeaveRoom() throws {
        let (answered, out) = try siege("half", 70)
        XCTAssertGreaterThanOrEqual(answered, 38, out)
    }

    func testIdleConnectionsLeaveRoom() throws {
        let (answered, out) = try siege("idle", 64)
        XCTAssertGreaterThanOrEqual(answered, 38, out)
    }

    func testACrowdOfEventStreamsLeavesRoom() throws {
        let (answered, out) = try siege("streams", 50)
        XCTAssertGreaterThanOrEqual(answered, 38, out)
    }
}
