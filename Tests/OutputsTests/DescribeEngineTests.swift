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
        let dir = try Fixtures.scratch()
        let watch = InProcessWatch(rules: "a test card=count+describe", in: dir)
        let engine = try LlamaEngine(modelPath: Fixtures.model, mmprojPath: Fixtures.mmproj, options: LlamaEngine.Options())
        let model = WatchedModel(engine) { prompt in prompt.hasPrefix("Answer each question") ? "1. Yes" : nil }
        let mqtt = MQTTOutput(broker: try MQTTBroker.parse(broker.url, environment: [:]).get(), name: "engine", discoveryPrefix: nil)
        let connected = OnFrame { _ in
            let deadline = Date().addingTimeInterval(10)
            while !mqtt.state.connected && Date() < deadline { usleep(10_000) }
        }
        let ending = try watch.run(engine: model, frames: 1, outputs: [connected, mqtt])
        XCTAssertEqual(ending.fires, 1)
        XCTAssertEqual(model.encodes, 1, "the description reused the frame's encoding")
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
    }
}
