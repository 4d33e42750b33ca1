import Foundation
import TestFixtures
import TestSupport
import XCTest

/// `--vision-weights`: the int8 tower is made once, at pull (or at the first load of a local
/// `--mmproj`), into the model cache and never beside the user's file, where it will be used; ask and
/// watch use it when asked, and by default where timing one layer on this CPU found it the faster
/// (remembered in the cache's tower-choice.json, and followed); they name it in their records; `f16`
/// runs the file as published; a changed source is copied again.
final class VisionWeightsCommandTests: XCTestCase {
    /// The choice `lookd pull` measured and wrote into `cache` (one entry: one CPU, one thread count).
    private func choice(_ cache: String) throws -> String {
        let list = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: cache + "/tower-choice.json"))) as? [[String: Any]]
        XCTAssertEqual(list?.count, 1)
        return try XCTUnwrap(list?.first?["weights"] as? String)
    }

    /// Writes `weights` as the remembered choice into `cache`.
    private func remember(_ weights: String, in cache: String) throws {
        let path = cache + "/tower-choice.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let changed = text.replacingOccurrences(of: "\"weights\" : \"q8_0\"", with: "\"weights\" : \"\(weights)\"")
            .replacingOccurrences(of: "\"weights\" : \"f16\"", with: "\"weights\" : \"\(weights)\"")
        try changed.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// The copies in the cache (each with its checksum beside it, `<copy>.sha256`).
    private func copies(_ cache: String) -> [String] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: cache + "/vision-q8_0")) ?? []).sorted()
        let copies = names.filter { !$0.hasSuffix(".sha256") }
        for copy in copies where !copy.hasPrefix(".") { XCTAssertTrue(names.contains(copy + ".sha256"), "\(copy) has its checksum") }
        return copies
    }

    private func weights(_ json: String) throws -> String? {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        return object?["vision_weights"] as? String
    }

    func testThePulledModelsTowerIsMadeOnceUsedByDefaultAndMadeAgainWhenItChanges() throws {
        let hub = try HubServer(files: ["MiniCPM-V-4.7-1B-Q8_0.gguf": Fixtures.model47, "mmproj-model-f16.gguf": Fixtures.mmproj47])
        let dir = try Fixtures.scratch()
        let cache = dir.appendingPathComponent("cache").path
        let env = ["HF_ENDPOINT": hub.endpoint, "LOOKD_MODELS": cache, "GGML_NO_BACKTRACE": "1"]
        let pull = try Subprocess.run(Fixtures.lookd, ["pull", "minicpm-v-4.7-1b"], environment: env)
        XCTAssertEqual(pull.status, 0, pull.stderr)
        XCTAssertTrue(pull.stderr.contains("timing the vision tower's weights on this CPU"), pull.stderr)
        let int8 = try choice(cache) == "q8_0"
        XCTAssertEqual(pull.stderr.contains("mmproj-model-f16.gguf → Q8_0 tower (made once): 100%"), int8, pull.stderr)
        XCTAssertEqual(copies(cache).count, int8 ? 1 : 0, "made at pull only where it will be used: \(copies(cache))")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: cache + "/minicpm-v-4.7-1b").filter { $0.hasSuffix(".gguf") && !$0.hasPrefix(".") }
                .sorted(),
            ["MiniCPM-V-4.7-1B-Q8_0.gguf", "mmproj-model-f16.gguf"], "nothing beside the pair")

        let models = try Subprocess.run(Fixtures.lookd, ["models"], environment: env)
        XCTAssertTrue(models.stdout.contains(int8 ? "q8_0 tower made" : "f16 tower (the faster on this CPU)"), models.stdout)
        XCTAssertFalse(models.stderr.contains("timing"), "remembered, not timed again: \(models.stderr)")
        XCTAssertTrue(models.stdout.contains("Vision tower on this CPU: \(int8 ? "q8_0" : "f16") (one tower layer: "), models.stdout)
        let inspect = try Subprocess.run(Fixtures.lookd, ["models", "inspect", "minicpm-v-4.7-1b"], environment: env)
        XCTAssertTrue(
            inspect.stdout.contains(
                int8
                    ? "vision tower    q8_0, lookd's copy \(cache)/vision-q8_0/"
                    : "vision tower    f32, as published (the faster on this CPU; "),
            inspect.stdout)
        XCTAssertTrue(inspect.stdout.contains("tower chosen    \(int8 ? "q8_0" : "f16"): one tower layer: "), inspect.stdout)

        let photo = dir.appendingPathComponent("p.png").path
        try TestMedia.photo(photo, width: 64, height: 64)
        let base = ["ask", photo, "What?", "--model", "minicpm-v-4.7-1b", "--tokens", "2"]
        let ask = base + ["--vision-weights", "q8_0", "--json"]
        let first = try Subprocess.run(Fixtures.lookd, ask + [dir.appendingPathComponent("a.json").path], environment: env)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(first.stderr.contains("Q8_0 tower (made once): 100%"), !int8, "made at pull, not again, or now: \(first.stderr)")
        XCTAssertEqual(try weights(dir.appendingPathComponent("a.json").path), "q8_0")
        // Without the option, the remembered choice: each way, as the file says.
        for remembered in ["q8_0", "f16"] {
            try remember(remembered, in: cache)
            let json = dir.appendingPathComponent("e-\(remembered).json").path
            XCTAssertEqual(try Subprocess.run(Fixtures.lookd, base + ["--json", json], environment: env).status, 0)
            XCTAssertEqual(try weights(json), remembered == "q8_0" ? "q8_0" : "f32")
        }

        let published = try Subprocess.run(
            Fixtures.lookd, base + ["--json", dir.appendingPathComponent("b.json").path, "--vision-weights", "f16"], environment: env)
        XCTAssertEqual(published.status, 0, published.stderr)
        XCTAssertEqual(try weights(dir.appendingPathComponent("b.json").path), "f32", "the fixture's mmproj as published is F32")

        let bad = try Subprocess.run(
            Fixtures.lookd, base + ["--json", dir.appendingPathComponent("c.json").path, "--vision-weights", "int4"], environment: env)
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--vision-weights takes q8_0"), bad.stderr)

        // A copy a killed process left half made (its pid gone) is removed when the copy is made again.
        let leftover = cache + "/vision-q8_0/." + copies(cache)[0] + ".partial-999999.tmp"
        FileManager.default.createFile(atPath: leftover, contents: Data("half".utf8))
        // A new mmproj in the cache (another modification time): its copy is made again, in place.
        let mmproj = cache + "/minicpm-v-4.7-1b/mmproj-model-f16.gguf"
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(120)], ofItemAtPath: mmproj)
        let again = try Subprocess.run(Fixtures.lookd, ask + [dir.appendingPathComponent("d.json").path], environment: env)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("Q8_0 tower (made once): 100%"), again.stderr)
        XCTAssertEqual(copies(cache).count, 1, "one copy a source, and no leftover: \(copies(cache))")
    }

    /// A local pair in a folder the user cannot write: the copy goes into the cache, the folder is
    /// untouched; a cache lookd cannot use leaves the tower as published, said once.
    func testALocalMmprojIsCopiedIntoTheCacheNeverBesideIt() throws {
        let dir = try Fixtures.scratch()
        let mine = dir.appendingPathComponent("mine")
        try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true)
        for (src, name) in [(Fixtures.model47, "m.gguf"), (Fixtures.mmproj47, "p.gguf")] {
            try FileManager.default.copyItem(atPath: src, toPath: mine.appendingPathComponent(name).path)
        }
        let photo = dir.appendingPathComponent("p.png").path
        try TestMedia.photo(photo, width: 64, height: 64)
        let cache = dir.appendingPathComponent("cache").path
        let args = [
            "ask", photo, "What?", "--model", mine.appendingPathComponent("m.gguf").path, "--mmproj", mine.appendingPathComponent("p.gguf").path,
            "--tokens", "2", "--vision-weights", "q8_0",
        ]
        let ask = try Subprocess.run(
            Fixtures.lookd, args + ["--json", dir.appendingPathComponent("a.json").path], environment: ["LOOKD_MODELS": cache])
        XCTAssertEqual(ask.status, 0, ask.stderr)
        XCTAssertTrue(ask.stderr.contains("p.gguf → Q8_0 tower (made once): 100%"), ask.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: mine.path).sorted(), ["m.gguf", "p.gguf"])
        XCTAssertEqual(copies(cache).count, 1)
        XCTAssertEqual(try weights(dir.appendingPathComponent("a.json").path), "q8_0")

        let blocked = dir.appendingPathComponent("blocked").path
        try Data("a file where the cache's folder should be".utf8).write(to: URL(fileURLWithPath: blocked))
        let fallback = try Subprocess.run(
            Fixtures.lookd, args + ["--json", dir.appendingPathComponent("b.json").path], environment: ["LOOKD_MODELS": blocked + "/cache"])
        XCTAssertEqual(fallback.status, 0, fallback.stderr)
        XCTAssertTrue(fallback.stderr.contains("the vision tower's Q8_0 copy could not be made"), fallback.stderr)
        XCTAssertEqual(try weights(dir.appendingPathComponent("b.json").path), "f32")
    }
}
