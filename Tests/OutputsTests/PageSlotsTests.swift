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

    /// Hardening 6: streams opened on several cameras' pages of one house, each from its own 127.x
    /// address, draw on the server's one count of streams (16), and leave room for whole requests.
    func testStreamsOnSeveralCamerasPagesFromManyLoopbackAddressesLeaveRoom() throws {
        let port = LoopbackPort.free()
        let clock = MonotonicClock()
        let house = WebHouse(listen: .init(host: "127.0.0.1", port: port), token: nil, history: nil, clock: clock)
        try house.open()
        defer { house.stop() }
        let pages = ["door", "yard", "drive", "attic"].map {
            WebOutput(listen: .init(host: "127.0.0.1", port: port), token: nil, snapshotsDir: nil, clock: clock, house: house, camera: $0)
        }
        for page in pages { try page.start(events: EventStream([])) }
        defer { for page in pages { page.stop() } }
        let script = Fixtures.root.appendingPathComponent("Tests/Fixtures/page_siege.py").path
        let streams = ["door", "yard", "drive", "attic"].map { "/camera/\($0)/api/events" }.joined(separator: ",")
        let out = try Subprocess.run("/usr/bin/env", ["python3", script, String(port), "streams", "64", "40", "spread", streams]).stdout
        print("MEASURE page siege, 4 cameras' streams from 64 addresses: \(out.trimmingCharacters(in: .whitespacesAndNewlines))")
        let answered = Int(out.split(separator: " ").dropFirst().first ?? "") ?? -1
        XCTAssertGreaterThanOrEqual(answered, 38, out)
        XCTAssertEqual(house.streams.limit, 16)
    }
}
