import Foundation
import LookCore
import ModelStore
import TestFixtures
import TestSupport
import VLM
import XCTest

/// Pulling a catalog model from a local Hub stand-in that serves the fixture pair under the file
/// names the real repos use.
final class ModelPullTests: XCTestCase {
    /// openbmb/MiniCPM-V-4.6-gguf's names (its Hub page).
    private let files = [
        "MiniCPM-V-4_6-Q4_K_M.gguf": Fixtures.model,
        "MiniCPM-V-4_6-Q8_0.gguf": Fixtures.model,
        "mmproj-model-f16.gguf": Fixtures.mmproj,
        "README.md": Fixtures.root.appendingPathComponent("README.md").path,
    ]

    private func puller(_ hub: HubServer, cache: String) -> ModelPuller {
        ModelPuller(cache: ModelCache(root: cache), environment: ["HF_ENDPOINT": hub.endpoint], clock: MonotonicClock())
    }

    func testPullsTheQ8PairVerifiedAndLoadsIt() throws {
        let hub = try HubServer(files: files)
        let cache = try Fixtures.scratch().path
        let manifest = try puller(hub, cache: cache).pull("minicpm-v-4.6")
        XCTAssertEqual(manifest.model.name, "MiniCPM-V-4_6-Q8_0.gguf")
        XCTAssertEqual(manifest.mmproj.name, "mmproj-model-f16.gguf")
        XCTAssertEqual(manifest.repo, "openbmb/MiniCPM-V-4.6-gguf")
        let paths = ModelCache(root: cache).paths(manifest)
        XCTAssertEqual(SHA256.hex(ofFile: paths.model), SHA256.hex(ofFile: Fixtures.model))
        XCTAssertNotNil(ModelCache(root: cache).present("minicpm-v-4.6"))
        XCTAssertNoThrow(try LlamaEngine(modelPath: paths.model, mmprojPath: paths.mmproj, clock: MonotonicClock()))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: ModelCache(root: cache).folder("minicpm-v-4.6"))
            .filter { $0.hasSuffix(".part") }
        XCTAssertEqual(leftovers, [])
    }

    func testAConnectionCutMidwayIsResumedWithRange() throws {
        let hub = try HubServer(files: files, options: ["--cut", "100000"])
        let cache = try Fixtures.scratch().path
        let manifest = try puller(hub, cache: cache).pull("minicpm-v-4.6")
        XCTAssertEqual(SHA256.hex(ofFile: ModelCache(root: cache).paths(manifest).mmproj), SHA256.hex(ofFile: Fixtures.mmproj))
        XCTAssertTrue(hub.requests.contains("mmproj-model-f16.gguf bytes=100000-"), "\(hub.requests)")
    }

    func testTwoPullsOfTheSameModelDoNotCollide() throws {
        let hub = try HubServer(files: files, options: ["--slow", "3000000"])
        let cache = try Fixtures.scratch().path
        let group = DispatchGroup()
        let failures = Failures()
        let endpoint = hub.endpoint
        for _ in 0..<2 {
            DispatchQueue.global().async(group: group) {
                let puller = ModelPuller(cache: ModelCache(root: cache), environment: ["HF_ENDPOINT": endpoint], clock: MonotonicClock())
                do { _ = try puller.pull("minicpm-v-4.6") } catch {
                    failures.add("\(error)")
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(failures.count, 0)
        let manifest = try XCTUnwrap(ModelCache(root: cache).present("minicpm-v-4.6"))
        XCTAssertEqual(SHA256.hex(ofFile: ModelCache(root: cache).paths(manifest).model), SHA256.hex(ofFile: Fixtures.model))
        XCTAssertEqual(hub.requests.filter { $0.hasPrefix("MiniCPM-V-4_6-Q8_0.gguf") }.count, 1, "the second pull waited and found it done")
    }

    func testAWrongChecksumLeavesNothingBehind() throws {
        let hub = try HubServer(files: files, options: ["--wrong-sha"])
        let cache = try Fixtures.scratch().path
        XCTAssertThrowsError(try puller(hub, cache: cache).pull("minicpm-v-4.6")) { error in
            guard case .checksum(let file, _, _, let root)? = error as? PullError else { return XCTFail("\(error)") }
            XCTAssertTrue(file.hasSuffix("MiniCPM-V-4_6-Q8_0.gguf"))
            XCTAssertEqual(root, cache)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: ModelCache(root: cache).folder("minicpm-v-4.6"))
            .filter { !$0.hasPrefix(".") }
        XCTAssertEqual(left, [], "no half-written or unverified file where a complete one would be")
        XCTAssertNil(ModelCache(root: cache).present("minicpm-v-4.6"))
    }

    func testA404AndNoNetworkSayWhatAndWhere() throws {
        let hub = try HubServer(files: files, options: ["--missing-repo", "openbmb/MiniCPM-V-4.6-gguf"])
        let cache = try Fixtures.scratch().path
        XCTAssertThrowsError(try puller(hub, cache: cache).pull("minicpm-v-4.6")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("\(hub.endpoint)/api/models/openbmb/MiniCPM-V-4.6-gguf/tree/main answered HTTP 404"), text)
            XCTAssertTrue(text.contains(cache), text)
        }
        let offline = ModelPuller(cache: ModelCache(root: cache), environment: ["HF_ENDPOINT": "http://127.0.0.1:9"], clock: MonotonicClock())
        XCTAssertThrowsError(try offline.pull("minicpm-v-4.6")) { error in
            guard case .unreachable(let url, _, let root)? = error as? PullError else { return XCTFail("\(error)") }
            XCTAssertTrue(url.hasPrefix("http://127.0.0.1:9/api/models/"))
            XCTAssertEqual(root, cache)
        }
        XCTAssertThrowsError(try offline.pull("no-such-model")) { error in
            XCTAssertEqual(error as? PullError, .unknownModel(id: "no-such-model"))
        }
    }

    /// Servers that misbehave without end (test stand-ins: real servers cannot be made to): the pull
    /// is bounded in memory, in bytes written and in time, and says which bound it met.
    func testAnEndlessListingAnEndlessFileAndASilentServerAreBounded() throws {
        var hub = try HubServer(files: files, options: ["--endless-listing"])
        let cache = try Fixtures.scratch().path
        XCTAssertThrowsError(try puller(hub, cache: cache).pull("minicpm-v-4.6")) { error in
            XCTAssertTrue("\(error)".hasSuffix("did not answer with a file listing: it is over 8 MB, far more than a listing."), "\(error)")
        }

        hub = try HubServer(files: files, options: ["--endless-body"])
        XCTAssertThrowsError(try puller(hub, cache: cache).pull("minicpm-v-4.6")) { error in
            guard case .tooLong(let url, let listed, _)? = error as? PullError else { return XCTFail("\(error)") }
            XCTAssertTrue(url.hasSuffix("/resolve/main/MiniCPM-V-4_6-Q8_0.gguf"), url)
            XCTAssertEqual(listed, (try? FileManager.default.attributesOfItem(atPath: Fixtures.model)[.size] as? Int) ?? -1)
        }
        let left = (try FileManager.default.subpathsOfDirectory(atPath: cache)).filter { $0.hasSuffix(".part") }
        XCTAssertEqual(left, [], "the oversized download is deleted")

        hub = try HubServer(files: files, options: ["--silent"])
        let silent = ModelPuller(
            cache: ModelCache(root: cache), environment: ["HF_ENDPOINT": hub.endpoint, "LOOKD_PULL_TIMEOUT": "1"], clock: MonotonicClock())
        XCTAssertThrowsError(try silent.pull("minicpm-v-4.6")) { error in
            guard case .unreachable(_, let reason, _)? = error as? PullError else { return XCTFail("\(error)") }
            XCTAssertEqual(reason, "the server sent nothing for 1 s")
        }
    }

    /// A server whose answer's head never ends: cut off at 256 KB of headers, or when the head has
    /// gone on for the pull's time limit, and said which.
    func testEndlessResponseHeadersAreCutOffAndSaidSo() throws {
        let cache = try Fixtures.scratch().path
        for (option, expected) in [
            ("--endless-headers", "the server sent more than 256 KB of response headers"),
            ("--endless-headers-slow", "the server's response headers did not end within 1 s"),
        ] {
            let hub = try HubServer(files: files, options: [option])
            let puller = ModelPuller(
                cache: ModelCache(root: cache), environment: ["HF_ENDPOINT": hub.endpoint, "LOOKD_PULL_TIMEOUT": "1"], clock: MonotonicClock())
            let started = Date()
            XCTAssertThrowsError(try puller.pull("minicpm-v-4.6")) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(option): \(error)")
            }
            XCTAssertLessThan(Date().timeIntervalSince(started), 15, option)
        }
    }

    func testASlowServerStillCompletesAndReportsProgress() throws {
        let hub = try HubServer(files: files, options: ["--slow", "2000000"])
        let cache = try Fixtures.scratch().path
        let seen = Seen()
        let puller = ModelPuller(cache: ModelCache(root: cache), environment: ["HF_ENDPOINT": hub.endpoint], clock: MonotonicClock()) { seen.add($0) }
        _ = try puller.pull("minicpm-v-4.6")
        XCTAssertGreaterThan(seen.count, 2, "progress while it downloads")
        XCTAssertEqual(
            seen.lastDownloadBytes,
            Int64(try FileManager.default.attributesOfItem(atPath: Fixtures.mmproj)[.size] as! Int))
    }

    func testAFullDiskSaysSoAndLeavesNoCompleteLookingFile() throws {
        // A 300 KB tmpfs as the cache: the 435 KB language model cannot fit. Needs root (as CI runs).
        let cache = try Fixtures.scratch().path
        guard (try Subprocess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=300k", "tmpfs", cache])).status == 0 else {
            return XCTFail("this test mounts a small tmpfs, which needs root")
        }
        defer { _ = try? Subprocess.run("/bin/umount", [cache]) }
        let hub = try HubServer(files: files)
        XCTAssertThrowsError(try puller(hub, cache: cache).pull("minicpm-v-4.6")) { error in
            guard case .disk(let file, let reason)? = error as? PullError else { return XCTFail("\(error)") }
            XCTAssertTrue(file.hasSuffix("MiniCPM-V-4_6-Q8_0.gguf.part"), file)
            XCTAssertFalse(reason.isEmpty)
            XCTAssertTrue("\(error)".hasPrefix("Could not write \(file)"), "\(error)")
        }
        let dir = ModelCache(root: cache).folder("minicpm-v-4.6")
        XCTAssertFalse(FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent("MiniCPM-V-4_6-Q8_0.gguf")))
        XCTAssertNil(ModelCache(root: cache).present("minicpm-v-4.6"))
    }

    func testTheDefaultModelPullsAndLoadsAsPublished() throws {
        // The 4.7 repo's Q4_K_M under its published kind of name, and the language model as ggml-org's
        // converter writes it: no time-slot key at all. lookd recognises 4.7 from the mmproj.
        let hub = try HubServer(files: [
            "MiniCPM-V-4_7-1B-Q4_K_M.gguf": Fixtures.variant47("nokey"),
            "mmproj-model-f16.gguf": Fixtures.mmproj47,
        ])
        let cache = try Fixtures.scratch().path
        let manifest = try puller(hub, cache: cache).pull(ModelCatalog.defaultID)
        XCTAssertEqual(manifest.model.name, "MiniCPM-V-4_7-1B-Q4_K_M.gguf")
        let paths = ModelCache(root: cache).paths(manifest)
        let engine = try LlamaEngine(modelPath: paths.model, mmprojPath: paths.mmproj, clock: MonotonicClock())
        XCTAssertEqual(engine.pair.verdict, .canvas(.suppliedByLookd(reason: "the language model names no time slot")))
    }

    func testEachCatalogRepoListingGivesThePairUsersGet() {
        // The names on each repo's Hub page (2026-11); a README and other files beside them.
        let f = { (p: String) in HubFile(path: p, size: 10, lfs: nil) }
        let listings: [String: ([String], String, String)] = [
            "minicpm-v-4.6": (
                ["MiniCPM-V-4_6-Q8_0.gguf", "MiniCPM-V-4_6-Q4_K_M.gguf", "mmproj-model-f16.gguf"],
                "MiniCPM-V-4_6-Q8_0.gguf", "mmproj-model-f16.gguf"
            ),
            "smolvlm2-2.2b": (
                ["SmolVLM2-2.2B-Instruct-Q4_K_M.gguf", "mmproj-SmolVLM2-2.2B-Instruct-Q8_0.gguf"],
                "SmolVLM2-2.2B-Instruct-Q4_K_M.gguf", "mmproj-SmolVLM2-2.2B-Instruct-Q8_0.gguf"
            ),
            "qwen2.5-vl-3b": (
                ["Qwen2.5-VL-3B-Instruct-Q4_K_M.gguf", "mmproj-Qwen2.5-VL-3B-Instruct-Q8_0.gguf"],
                "Qwen2.5-VL-3B-Instruct-Q4_K_M.gguf", "mmproj-Qwen2.5-VL-3B-Instruct-Q8_0.gguf"
            ),
            "gemma-3-4b": (
                ["gemma-3-4b-it-Q4_K_M.gguf", "gemma-3-4b-it-Q8_0.gguf", "mmproj-model-f16.gguf"],
                "gemma-3-4b-it-Q8_0.gguf", "mmproj-model-f16.gguf"
            ),
        ]
        for (id, (names, model, mmproj)) in listings {
            XCTAssertNotNil(ModelCatalog.model(id), id)
            let pick = HubChoice.choose((names + ["README.md", ".gitattributes"]).map(f))
            XCTAssertEqual(pick?.model.path, model, id)
            XCTAssertEqual(pick?.mmproj.path, mmproj, id)
        }
    }

    func testChoosingFromAListing() {
        let f = { (p: String) in HubFile(path: p, size: 10, lfs: nil) }
        let pick = HubChoice.choose([f("m-F16.gguf"), f("m-Q4_K_M.gguf"), f("mmproj-m-F16.gguf"), f("m-Q8_0.gguf")])
        XCTAssertEqual(pick?.model.path, "m-Q8_0.gguf")
        XCTAssertEqual(pick?.mmproj.path, "mmproj-m-F16.gguf")
        XCTAssertEqual(HubChoice.choose([f("m-Q4_K_M.gguf"), f("mmproj.gguf")])?.model.path, "m-Q4_K_M.gguf")
        XCTAssertNil(HubChoice.choose([f("m-Q8_0.gguf")]), "no mmproj")
    }

    func testTheCacheFolder() {
        XCTAssertEqual(ModelCache(environment: ["LOOKD_MODELS": "/m", "XDG_CACHE_HOME": "/x"]).root, "/m")
        XCTAssertEqual(ModelCache(environment: ["XDG_CACHE_HOME": "/x", "HOME": "/h"]).root, "/x/lookd/models")
        XCTAssertEqual(ModelCache(environment: ["HOME": "/h"]).root, "/h/.cache/lookd/models")
    }

    private final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var all: [String] = []
        func add(_ s: String) { lock.withLock { all.append(s) } }
        var count: Int { lock.withLock { all.count } }
    }

    private final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var all: [Downloader.Progress] = []
        func add(_ p: Downloader.Progress) { lock.withLock { all.append(p) } }
        var count: Int { lock.withLock { all.count } }
        /// The bytes of the last download report (a pull also reports making the int8 tower copy, as
        /// "NAME → Q8_0 tower (made once)").
        var lastDownloadBytes: Int64 { lock.withLock { all.last { !$0.file.contains("Q8_0 tower") }?.bytes ?? 0 } }
    }
}
