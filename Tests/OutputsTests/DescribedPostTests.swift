import Foundation
import LookCore
import Records
import TestFixtures
import TestSupport
import XCTest

/// `post:` with `wait: description`, in-process against a loopback server of the tests' own: the
/// post goes once the description is in and carries it (in the JSON, and as a text post's message);
/// a description that fails sends the post without it, saying so.
final class DescribedPostTests: XCTestCase {
    func testAPostWaitsForTheDescriptionAndCarriesIt() throws {
        let server = try PostServer()
        let dir = try Fixtures.scratch()
        let rules = dir.appendingPathComponent("rules.yaml").path
        try """
        rules:
          - when: a parcel
            post: {url: "\(server.url("/ok"))", wait: description}
          - when: a courier
            post: {url: "\(server.url("/ok"))", format: text, wait: description}
          - when: a dog
            post: {url: "\(server.url("/ok"))", wait: description}
        """.write(toFile: rules, atomically: true, encoding: .utf8)
        var watch = InProcessWatch(rules: rules, in: dir)
        watch.config.name = "porch"
        _ = try watch.run(
            answers: ["1. Yes\\n2. Yes\\n3. Yes", "A courier leaves a box.", "He waves.", "!fail the model broke"], frames: 1, outputs: [])
        let deadline = Date().addingTimeInterval(10)
        while server.requests.count < 3 && Date() < deadline { usleep(20_000) }
        let bodies = server.requests.map { String(decoding: $0.body, as: UTF8.self) }
        XCTAssertEqual(bodies.count, 3, "\(bodies)")
        let json = bodies.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let parcel = try XCTUnwrap(json.first { $0["condition"] as? String == "a parcel" })
        XCTAssertEqual(parcel["description"] as? String, "A courier leaves a box.")
        XCTAssertTrue(bodies.contains("He waves. (a courier, porch)"), "the text post's message is the description: \(bodies)")
        let dog = try XCTUnwrap(json.first { $0["condition"] as? String == "a dog" })
        XCTAssertTrue(dog["description"] is NSNull)
        XCTAssertEqual(dog["description_problem"] as? String, "the description failed")
        let described = watch.events.filter { $0["event"] as? String == "described" }
        XCTAssertEqual(described.map { $0["description"] as? String }, ["A courier leaves a box.", "He waves.", nil])
    }
}
