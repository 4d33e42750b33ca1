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
        var watch = try InProcessWatch(
            yaml: """
                rules:
                  - when: a parcel
                    post: {url: "\(server.url("/ok"))", wait: description}
                  - when: a courier
                    post: {url: "\(server.url("/ok"))", format: text, wait: description}
                  - when: a dog
                    post: {url: "\(server.url("/ok"))", wait: description}
                """)
        watch.config.name = "porch"
        _ = try watch.run(
            answers: ["1. Yes\\n2. Yes\\n3. Yes", "A courier leaves a box.", "He waves.", "!fail the model broke"], frames: 1, outputs: [])
        Poll.until(within: 10) { server.requests.count >= 3 }
        let bodies = server.requests.map { String(decoding: $0.body, as: UTF8.self) }
        XCTAssertEqual(bodies.count, 3, "\(bodies)")
        let json = bodies.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let parcel = try XCTUnwrap(json.first { $0["condition"] as? String == "a parcel" })
        XCTAssertEqual(parcel["description"] as? String, "A courier leaves a box.")
        XCTAssertTrue(bodies.contains("He waves. (a courier, porch)"), "the text post's message is the description: \(bodies)")
        let dog = try XCTUnwrap(json.first { $0["condition"] as? String == "a dog" })
        XCTAssertTrue(dog["description"] is NSNull)
        XCTAssertTrue((dog["description_problem"] as? String)?.hasPrefix("the model failed") == true, "\(dog)")
        let described = watch.events.filter { $0["event"] as? String == "described" }
        XCTAssertEqual(described.map { $0["description"] as? String }, ["A courier leaves a box.", "He waves.", nil])
    }

    /// `run:` with `wait: description` starts with the description in its environment and JSON.
    func testACommandWaitsForTheDescriptionAndGetsIt() throws {
        let watch = try InProcessWatch(
            yaml: """
                rules:
                  - when: a parcel
                    run: {command: [/bin/sh, -c, "echo \\"$LOOKD_DESCRIPTION\\"; cat"], wait: description}
                """, clock: MonotonicClock())
        _ = try watch.run(answers: ["1. Yes", "A courier leaves a box."], frames: 1, outputs: [])
        let command = try XCTUnwrap(watch.events.first { $0["event"] as? String == "command" })
        let output = try XCTUnwrap(command["output"] as? String)
        XCTAssertTrue(output.hasPrefix("A courier leaves a box.\n"), "\(command)")
        XCTAssertTrue(output.contains("\"description\":\"A courier leaves a box.\""), output)
    }

    /// A description slower than `--describe-timeout`: the post goes without it, saying so, and the
    /// description still follows as its event.
    func testAPostGoesWithoutADescriptionThatIsLate() throws {
        let server = try PostServer()
        var watch = try InProcessWatch(
            yaml: "rules:\n  - when: a parcel\n    post: {url: \"\(server.url("/ok"))\", wait: description}\n", clock: MonotonicClock())
        watch.config.posts.descriptionWait = 0.2
        _ = try watch.run(answers: ["1. Yes", "!wait 1 A courier leaves a box."], frames: 1, outputs: [])
        let body = try XCTUnwrap(server.requests.first?.body)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        XCTAssertTrue(json["description"] is NSNull)
        XCTAssertEqual(json["description_problem"] as? String, "no description came within 0.2 s")
        XCTAssertEqual(watch.events.first { $0["event"] as? String == "described" }?["description"] as? String, "A courier leaves a box.")
        XCTAssertEqual(server.requests.count, 1, "sent once: the late description finds nothing waiting")
    }

    /// The fire itself is not delayed by `describe:`: a post without `wait:` of a rule that is
    /// described leaves as soon as one of a rule that is not (printed; the assertion rules out a
    /// post held for the description).
    func testAFiresOwnPostLeavesBeforeItsDescription() throws {
        let server = try PostServer()
        let watch = try InProcessWatch(
            yaml: """
                rules:
                  - when: a parcel
                    post: "\(server.url("/ok"))"
                    describe: true
                  - when: a dog
                    post: "\(server.url("/ok"))"
                """, clock: MonotonicClock())
        let started = Date().timeIntervalSince1970
        _ = try watch.run(answers: ["1. Yes\\n2. Yes", "!wait 2 A courier leaves a box."], frames: 1, outputs: [])
        let arrived = Dictionary(
            uniqueKeysWithValues: server.requests.compactMap { request -> (String, Double)? in
                guard let json = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any], let c = json["condition"] as? String else {
                    return nil
                }
                return (c, request.time - started)
            })
        let (described, plain) = (try XCTUnwrap(arrived["a parcel"]), try XCTUnwrap(arrived["a dog"]))
        print("MEASURE fire→post: described rule \(Int(described * 1000)) ms, plain rule \(Int(plain * 1000)) ms (the description took 2000 ms)")
        XCTAssertLessThan(described, 1.5, "the described rule's post did not wait for its description")
    }
}
