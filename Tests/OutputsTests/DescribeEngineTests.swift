import Foundation
import LookCore
import Records
import TestFixtures
import TestSupport
import VLM
import XCTest

@testable import Outputs

/// A description from the real engine (llama.cpp on the tiny random-weight model): the yes/no
/// question is answered by the test (the tiny model's yes is chance), the description by the model,
/// on the frame's own encoding; its text is the same in the event, the run record and MQTT.
final class DescribeEngineTests: XCTestCase {
    func testTheTinyModelsDescriptionReachesTheRecordAndMQTT() throws {
        let broker = try Mosquitto()
        let server = try PostServer()
        var watch = try InProcessWatch(
            yaml: """
                rules:
                  - when: a test card
                    count: true
                    describe: true
                  - when: a test card
                    post: {url: "\(server.url("/ok"))", wait: description}
                  - when: a test card
                    post: {url: "\(server.url("/ok"))", format: text, wait: description}
                """)
        watch.config.name = "engine"
        let engine = try LlamaEngine(modelPath: Fixtures.model, mmprojPath: Fixtures.mmproj, options: LlamaEngine.Options(), clock: MonotonicClock())
        let model = WatchedModel(engine) { prompt in prompt.hasPrefix("Answer each question") ? "1. Yes\n2. Yes\n3. Yes" : nil }
        let mqtt = MQTTOutput(
            broker: try MQTTBroker.parse(broker.url, environment: [:]).get(), name: "engine", discoveryPrefix: nil, clock: MonotonicClock())
        let connected = OnFrame { _ in
            Poll.until(within: 10, every: 0.01) { mqtt.state.connected }
        }
        let ending = try watch.run(engine: model, frames: 1, outputs: [connected, mqtt])
        XCTAssertEqual(ending.fires, 3)
        XCTAssertEqual(model.encodes, 1, "the descriptions reused the frame's encoding")
        let described = try XCTUnwrap(watch.events.first { $0["event"] as? String == "described" })
        let text = try XCTUnwrap(described["description"] as? String)
        XCTAssertFalse(text.isEmpty)
        XCTAssertGreaterThan(described["tokens_out"] as? Int ?? 0, 0)
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: ending.record))) as? [String: Any])
        let fire = try XCTUnwrap((record["fires"] as? [[String: Any]])?.first)
        XCTAssertEqual(fire["description"] as? String, text)
        let fired = try XCTUnwrap(try broker.retainedText("lookd/engine/rule/\(HomeAssistantDiscovery.id("a test card"))/fired"))
        let attributes = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(fired.utf8)) as? [String: Any])
        XCTAssertEqual(attributes["description"] as? String, text)
        // The posts that waited carry their own rule's description: in the JSON, and as the text.
        let bodies = server.requests.map { String(decoding: $0.body, as: UTF8.self) }
        let texts = watch.events.filter { $0["event"] as? String == "described" }.compactMap { $0["description"] as? String }
        XCTAssertEqual(texts.count, 3, "each rule's fire described")
        let json = try XCTUnwrap(bodies.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.first)
        XCTAssertEqual(json["description"] as? String, texts[1])
        XCTAssertTrue(bodies.contains("\(texts[2]) (a test card, engine)"), "\(bodies)")
    }
}
