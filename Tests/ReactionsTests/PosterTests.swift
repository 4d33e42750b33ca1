import Foundation
import LookCore
import ReactionDomain
import TestFixtures
import TestSupport
import XCTest

@testable import Reactions

/// `post:` against a loopback HTTP server of the tests' own: the JSON body, the snapshot as a
/// second part, text with headers, tries on a 500, a server that never answers, and the limit.
final class PosterTests: XCTestCase {
    private var server: PostServer!
    override func setUpWithError() throws { server = try PostServer() }
    // XCTest keeps every test case object to the end of the run: the server goes with its test.
    override func tearDown() { server = nil }

    private func fire(snapshot: String? = nil) -> FireContext {
        FireContext(
            fire: 3, rule: 1, condition: "a parcel on the step", reaction: "post", frame: 12, time: Date(), confidence: 0.8,
            snapshot: snapshot, instance: "porch")
    }

    private let quick = Poster.Settings(timeLimit: 2, connectLimit: 1, attempts: 3, backoff: 0.1)

    /// A webhook that never answers holds up only its own posts: another endpoint's go out, all.
    func testOneEndpointThatNeverAnswersStarvesNoOther() throws {
        let healthy = try PostServer()
        let poster = Poster(
            settings: Poster.Settings(timeLimit: 3, connectLimit: 1, attempts: 1, backoff: 0.1, limit: 2, waiting: 2), clock: MonotonicClock())
        let done = DispatchGroup()
        let hung = Post(url: server.url("/hang"))
        var taken = 0
        let reports = CollectedLines()
        for _ in 0..<6 {
            done.enter()
            // A dropped post has its one report too, saying why.
            if poster.start(
                hung, fire: fire(),
                done: { sent in
                    reports.add(sent.error ?? "sent"); done.leave()
                })
            {
                taken += 1
            }
        }
        XCTAssertEqual(taken, 4, "2 sending and 2 waiting; the rest dropped")
        XCTAssertEqual(reports.all.filter { $0.hasPrefix("dropped: 2 running and 2 waiting") }.count, 2, "\(reports.all)")
        XCTAssertEqual(poster.dropped, 2)
        for _ in 0..<3 {
            done.enter()
            XCTAssertTrue(
                poster.start(Post(url: healthy.url("/ok")), fire: fire(), done: { _ in done.leave() }), "the healthy endpoint takes its posts")
        }
        Poll.until(within: 2) { healthy.requests.count >= 3 }
        XCTAssertEqual(healthy.requests.count, 3, "delivered while the other endpoint hangs")
        XCTAssertEqual(poster.dropped, 2)
        XCTAssertEqual(done.wait(timeout: .now() + 15), .success)
    }

    func testTheFireIsPostedAsJSON() throws {
        let sent = Poster.send(Post(url: server.url("/ok")), fire: fire(), settings: quick, clock: MonotonicClock())
        XCTAssertTrue(sent.performed, sent.error ?? "")
        XCTAssertEqual(sent.status, 200)
        XCTAssertEqual(sent.attempts, 1)
        let request = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(request.headers["Content-Type"], "application/json")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        XCTAssertEqual(object["condition"] as? String, "a parcel on the step")
        XCTAssertEqual(object["instance"] as? String, "porch")
        XCTAssertEqual(object["fire"] as? Int, 3)
    }

    func testTheSnapshotGoesAsASecondPartByteForByte() throws {
        let dir = try Fixtures.scratch()
        let jpeg = dir.appendingPathComponent("fire.jpg").path
        let bytes = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: URL(fileURLWithPath: jpeg))
        let sent = Poster.send(Post(url: server.url("/ok"), snapshot: true), fire: fire(snapshot: jpeg), settings: quick, clock: MonotonicClock())
        XCTAssertTrue(sent.performed, sent.error ?? "")
        XCTAssertTrue(sent.snapshot)
        let request = try XCTUnwrap(server.requests.first)
        let type = try XCTUnwrap(request.headers["Content-Type"])
        XCTAssertTrue(type.hasPrefix("multipart/form-data; boundary="), type)
        let boundary = Data(("--" + type.components(separatedBy: "boundary=")[1]).utf8)
        let parts = request.body.split(separator: boundary).filter { $0.count > 4 }
        XCTAssertEqual(parts.count, 2, "fire and snapshot")
        let picture = try XCTUnwrap(parts.first { String(decoding: $0.prefix(200), as: UTF8.self).contains("name=\"snapshot\"") })
        let start = try XCTUnwrap(picture.range(of: Data("\r\n\r\n".utf8))).upperBound
        XCTAssertEqual(Data(picture[start..<(picture.endIndex - 2)]), bytes, "the part holds the file's bytes")
        XCTAssertTrue(String(decoding: parts[0].prefix(300), as: UTF8.self).contains("application/json"))
    }

    func testTextWithHeadersAsNtfyTakesIt() throws {
        let post = Post(
            url: server.url("/ok"), format: .text, headers: [.init(name: "Title", value: "Porch"), .init(name: "Priority", value: "high")])
        let sent = Poster.send(post, fire: fire(), settings: quick, clock: MonotonicClock())
        XCTAssertTrue(sent.performed, sent.error ?? "")
        let request = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(request.headers["Title"], "Porch")
        XCTAssertEqual(request.headers["Priority"], "high")
        XCTAssertTrue(request.headers["Content-Type"]?.hasPrefix("text/plain") == true)
        let text = String(decoding: request.body, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("a parcel on the step (rule 1, seen, 80%, porch, "), text)
    }

    func testA500IsTriedAgainAndA404IsNot() throws {
        var sent = Poster.send(Post(url: server.url("/fail/2")), fire: fire(), settings: quick, clock: MonotonicClock())
        XCTAssertTrue(sent.performed, sent.error ?? "")
        XCTAssertEqual(sent.attempts, 3)
        XCTAssertEqual(server.requests.filter { $0.path == "/fail/2" }.count, 3)
        sent = Poster.send(Post(url: server.url("/fail/9")), fire: fire(), settings: quick, clock: MonotonicClock())
        XCTAssertFalse(sent.performed)
        XCTAssertEqual(sent.error, "HTTP 500 (after 3 tries)")
        sent = Poster.send(Post(url: server.url("/status/404")), fire: fire(), settings: quick, clock: MonotonicClock())
        XCTAssertEqual(sent.attempts, 1)
        XCTAssertEqual(sent.error, "HTTP 404")
    }

    func testAServerThatNeverAnswersIsGivenUpAtTheLimit() throws {
        let started = Date()
        let sent = Poster.send(
            Post(url: server.url("/hang")), fire: fire(), settings: .init(timeLimit: 0.5, connectLimit: 0.5, attempts: 2, backoff: 0.1),
            clock: MonotonicClock())
        let took = Date().timeIntervalSince(started)
        XCTAssertFalse(sent.performed)
        XCTAssertNil(sent.status)
        XCTAssertEqual(sent.attempts, 2)
        XCTAssertTrue(sent.error?.hasPrefix("Timeout was reached") == true, sent.error ?? "")
        XCTAssertLessThan(took, 30, "two tries of 0.5 s, not the server's 120 s")
        // Nothing listening: refused at once, and the reason says so.
        let closed = Poster.send(Post(url: "http://127.0.0.1:9/x"), fire: fire(), settings: .init(attempts: 1), clock: MonotonicClock())
        XCTAssertEqual(closed.error, "Couldn't connect to server")
    }
}
