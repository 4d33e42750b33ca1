import Foundation
import LookCore
import ReactionDomain
import TestFixtures
import TestSupport
import XCTest

@testable import Reactions

/// Every post ends with exactly one word: sent, failed (why) or dropped (why), also when its queue
/// is full and when lookd stops with posts still waiting to start.
final class OutboundEndingTests: XCTestCase {
    private var server: PostServer!
    override func setUpWithError() throws { server = try PostServer() }
    override func tearDown() { server = nil }

    func testPostsWaitingAtTheStopAreReportedDropped() throws {
        let poster = Poster(
            settings: Poster.Settings(timeLimit: 30, connectLimit: 1, attempts: 1, backoff: 0.1, limit: 1, waiting: 2), clock: MonotonicClock())
        let reports = CollectedLines()
        var accepted = 0
        for n in 1...4 {
            let fire = FireContext(fire: n, rule: 1, condition: "a parcel", reaction: "post", frame: n, time: Date())
            if poster.start(Post(url: server.url("/hang")), fire: fire, done: { reports.add("\($0.fire): \($0.error ?? "sent")") }) { accepted += 1 }
        }
        XCTAssertEqual(accepted, 3, "1 sending, 2 waiting, 1 dropped")
        XCTAssertEqual(reports.all, ["4: dropped: 1 running and 2 waiting (1 dropped in this run)"])
        Poll.until(within: 5) { !server.requests.isEmpty }
        let stopped = poster.stopAll()
        XCTAssertEqual(stopped.map(\.fire), [1], "the one sending is reported by the stop")
        XCTAssertTrue(stopped[0].error?.contains("still waiting for an answer") == true)
        XCTAssertEqual(
            reports.all.sorted(),
            [
                "2: dropped: lookd stopped before it could start", "3: dropped: lookd stopped before it could start",
                "4: dropped: 1 running and 2 waiting (1 dropped in this run)",
            ])
        XCTAssertEqual(poster.dropped, 3)
    }
}
