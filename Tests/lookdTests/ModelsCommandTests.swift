import Foundation
import TestFixtures
import TestSupport
import XCTest

/// `lookd models`, `lookd pull` and the first `lookd ask` with a catalog id, against a local Hub.
final class ModelsCommandTests: XCTestCase {
    func testPullThenModelsThenAskPullsNothingMore() throws {
        let hub = try HubServer(files: ["MiniCPM-V-4_6-Q8_0.gguf": Fixtures.model, "mmproj-model-f16.gguf": Fixtures.mmproj])
        let cache = try Fixtures.scratch().path
        let env = ["HF_ENDPOINT": hub.endpoint, "LOOKD_MODELS": cache, "GGML_NO_BACKTRACE": "1"]

        let before = try Subprocess.run(Fixtures.lookd, ["models"], environment: env)
        XCTAssertEqual(before.status, 0)
        XCTAssertTrue(before.stdout.contains("Model cache: \(cache)"), before.stdout)
        XCTAssertTrue(before.stdout.contains("minicpm-v-4.7-1b  not pulled  openbmb/MiniCPM-V-4.7-1B-gguf (default)"), before.stdout)

        let pull = try Subprocess.run(Fixtures.lookd, ["pull", "minicpm-v-4.6"], environment: env)
        XCTAssertEqual(pull.status, 0, pull.stderr)
        XCTAssertTrue(pull.stderr.contains("MiniCPM-V-4_6-Q8_0.gguf: 100%"), pull.stderr)
        XCTAssertTrue(pull.stdout.contains("\(cache)/minicpm-v-4.6/MiniCPM-V-4_6-Q8_0.gguf"), pull.stdout)

        let after = try Subprocess.run(Fixtures.lookd, ["models"], environment: env)
        XCTAssertTrue(after.stdout.contains("minicpm-v-4.6     present"), after.stdout)

        let inspect = try Subprocess.run(Fixtures.lookd, ["models", "inspect", "minicpm-v-4.6"], environment: env)
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertTrue(inspect.stdout.contains("Language model  \(cache)/minicpm-v-4.6/MiniCPM-V-4_6-Q8_0.gguf"), inspect.stdout)
        XCTAssertTrue(inspect.stdout.hasSuffix("Verdict: runs natively\n"), inspect.stdout)
        let notPulled = try Subprocess.run(Fixtures.lookd, ["models", "inspect", "gemma-3-4b"], environment: env)
        XCTAssertEqual(notPulled.status, 6)
        XCTAssertTrue(notPulled.stderr.contains("run lookd pull gemma-3-4b"), notPulled.stderr)

        let photo = try Fixtures.scratch().appendingPathComponent("p.png").path
        try TestMedia.photo(photo, width: 64, height: 64)
        let requests = hub.requests.count
        let ask = try Subprocess.run(Fixtures.lookd, ["ask", photo, "What?", "--model", "minicpm-v-4.6", "--tokens", "4"], environment: env)
        XCTAssertEqual(ask.status, 0, ask.stderr)
        XCTAssertEqual(hub.requests.count, requests, "a present model is loaded from disk")
    }

    func testTheFirstAskPullsAModelThatIsNotThere() throws {
        let hub = try HubServer(files: ["MiniCPM-V-4_6-Q8_0.gguf": Fixtures.model, "mmproj-model-f16.gguf": Fixtures.mmproj])
        let cache = try Fixtures.scratch().path
        let photo = try Fixtures.scratch().appendingPathComponent("p.png").path
        try TestMedia.photo(photo, width: 64, height: 64)
        let ask = try Subprocess.run(
            Fixtures.lookd, ["ask", photo, "What?", "--model", "minicpm-v-4.6", "--tokens", "4"],
            environment: ["HF_ENDPOINT": hub.endpoint, "LOOKD_MODELS": cache, "GGML_NO_BACKTRACE": "1"])
        XCTAssertEqual(ask.status, 0, ask.stderr)
        XCTAssertTrue(ask.stderr.contains("mmproj-model-f16.gguf: 100%"), ask.stderr)
        XCTAssertTrue(ask.stderr.contains("first token"), ask.stderr)
    }

    func testNoNetworkIsAFailedLoadThatNamesTheURLAndTheCache() throws {
        let cache = try Fixtures.scratch().path
        let photo = try Fixtures.scratch().appendingPathComponent("p.png").path
        try TestMedia.photo(photo, width: 64, height: 64)
        let ask = try Subprocess.run(
            Fixtures.lookd, ["ask", photo, "What?"],
            environment: ["HF_ENDPOINT": "http://127.0.0.1:9", "LOOKD_MODELS": cache])
        XCTAssertEqual(ask.status, 6)
        XCTAssertTrue(
            ask.stderr.contains("FAILED: Could not reach http://127.0.0.1:9/api/models/openbmb/MiniCPM-V-4.7-1B-gguf/tree/main"), ask.stderr)
        XCTAssertTrue(ask.stderr.contains(cache), ask.stderr)
        let unknown = try Subprocess.run(Fixtures.lookd, ["pull", "gpt-9"], environment: ["LOOKD_MODELS": cache])
        XCTAssertEqual(unknown.status, 2)
    }
}
