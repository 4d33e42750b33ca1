import Foundation
import LookCore
import Records
import TestFixtures
import TestSupport
import XCTest

@testable import Outputs

/// The house page's tiles: a camera whose watch ended keeps its tile (with its last status), one
/// that never opened says why, and a reload that takes a camera out of the file takes its tile away.
final class HouseTilesTests: XCTestCase {
    private func tiles(_ house: WebHouse) throws -> [String: [String: Any]] {
        let list = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(house.camerasJSON().utf8)) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["camera"] as? String ?? "?", $0) })
    }

    func testACameraWhoseWatchEndedKeepsItsTile() throws {
        let port = LoopbackPort.free()
        let clock = MonotonicClock()
        let house = WebHouse(listen: .init(host: "127.0.0.1", port: port), token: nil, history: nil, clock: clock)
        try house.open()
        defer { house.stop() }
        house.expect(["door", "yard", "attic"])
        let (door, yard) = ["door", "yard"].map {
            WebOutput(listen: .init(host: "127.0.0.1", port: port), token: nil, snapshotsDir: nil, clock: clock, house: house, camera: $0)
        }.pair
        try door.start(events: EventStream([]))
        try yard.start(events: EventStream([]))
        house.notWatched("attic", because: "no-such.mp4 does not exist")
        door.stop() // the door's video ended
        var all = try tiles(house)
        XCTAssertEqual(Set(all.keys), ["door", "yard", "attic"], "every camera keeps its tile")
        XCTAssertNotNil(all["door"]?["ended"] as? String, "\(all["door"] ?? [:])")
        XCTAssertTrue(all["door"]?["not_watched"] is NSNull)
        XCTAssertTrue(all["yard"]?["ended"] is NSNull)
        XCTAssertEqual(all["attic"]?["not_watched"] as? String, "no-such.mp4 does not exist")
        // A reload whose file no longer has the door: its tile goes.
        house.expect(["yard", "attic"])
        all = try tiles(house)
        XCTAssertEqual(Set(all.keys), ["yard", "attic"])
        yard.stop()
    }
}

extension Array {
    fileprivate var pair: (Element, Element) { (self[0], self[1]) }
}
