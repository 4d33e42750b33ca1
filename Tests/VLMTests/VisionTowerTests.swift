import Capture
import Foundation
import LookCore
import TestSupport
import XCTest

@testable import VLM

/// lookd's int8 vision tower: the Q8_0 copy VisionQuantizer makes of an mmproj keeps every key and
/// every tensor, makes the layers' matrices Q8_0, loads, and stays close to the weights it came from
/// (and to transformers); a source cut short, or a disk that fills, leaves no file behind.
final class VisionTowerTests: XCTestCase {
    private func copy(of source: String, in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("tower-Q8_0.gguf").path
        var reports: [(Int64, Int64)] = []
        let summary = try VisionQuantizer.write(from: source, to: path) { reports.append(($0, $1)) }
        XCTAssertGreaterThan(summary.quantized, 0)
        XCTAssertEqual(reports.last.map { $0.0 == $0.1 }, true, "progress ends at the total")
        XCTAssertEqual(reports.map(\.0), reports.map(\.0).sorted(), "progress only goes forward")
        XCTAssertEqual(Int64((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0), summary.bytes)
        return path
    }

    func testTheCopyKeepsEveryKeyAndTensorAndMakesTheLayersMatricesQ8_0() throws {
        let dir = try Fixtures.scratch()
        let copy = try copy(of: Fixtures.mmproj47, in: dir)
        let source = try GGUFMetadata.read(path: Fixtures.mmproj47)
        let made = try GGUFMetadata.read(path: copy)
        for (key, value) in source.values { XCTAssertEqual(made.values[key], value, key) }
        XCTAssertEqual(made.string(VisionQuantizer.weightsKey), "q8_0")
        XCTAssertEqual(made.integer(VisionQuantizer.sourceSizeKey), Int(VisionQuantizer.stamp(of: Fixtures.mmproj47)!.size))
        XCTAssertEqual(made.tensors.map(\.name), source.tensors.map(\.name), "every tensor, in order")
        XCTAssertEqual(made.integer(VisionQuantizer.formatKey), 2, "this build pads down matrices' inputs")
        // The layers' down matrices' rows of 48 are padded with zeros to whole Q8_0 blocks (64), and
        // their up matrices and biases with zero rows to 64 outputs, so the activation comes out
        // padded; every other tensor keeps its size (the merger's down matrix is 192 wide: whole
        // blocks already).
        let sizes = Dictionary(uniqueKeysWithValues: source.tensors.map { ($0.name, $0.elements) })
        for tensor in made.tensors {
            let feedForward = [".ffn_down.weight", ".ffn_up.weight", ".ffn_up.bias"]
            let padded = tensor.name.hasPrefix("v.blk.") && feedForward.contains { tensor.name.hasSuffix($0) }
            XCTAssertEqual(tensor.elements, padded ? sizes[tensor.name]! / 3 * 4 : sizes[tensor.name], tensor.name)
        }
        let types = Dictionary(uniqueKeysWithValues: made.tensors.map { ($0.name, $0.type) })
        XCTAssertEqual(types["v.blk.0.attn_q.weight"], 8, "a 32-wide matrix is Q8_0")
        XCTAssertEqual(types["v.vit_merger.ds_ffn_up.weight"], 8)
        XCTAssertEqual(types["v.blk.0.ffn_down.weight"], 8, "rows of 48, padded to whole blocks of 32: Q8_0")
        XCTAssertEqual(sizes["v.blk.0.ffn_down.weight"].map { $0 % 48 }, 0, "the fixture's down matrices are 48 wide")
        XCTAssertEqual(types["v.position_embd.weight"], 0, "an embedding is added, not multiplied: kept")
        XCTAssertEqual(types["v.patch_embd.weight"], 0, "the patch convolution is kept")
        XCTAssertEqual(types["v.blk.0.ln1.weight"], 0, "norms are kept")
        XCTAssertEqual(source.mostWeights, "f32")
        XCTAssertEqual(made.mostWeights, "q8_0")
        XCTAssertEqual(VisionQuantizer.eligible(copy), 0, "a copy has nothing left to make int8")
    }

    private func embeddings(_ engine: LlamaEngine, _ picture: String) throws -> [Float] {
        let path = Fixtures.root.appendingPathComponent("Tests/Fixtures/models/\(picture)").path
        let encoded = try engine.encode(try PhotoDecoder.decode(path: path))
        return (encoded.payload as! ImagePieces).pieces.flatMap { piece -> [Float] in
            if case .image(_, let values) = piece { return values }
            return []
        }
    }

    private func cosine(_ a: [Float], _ b: [Float]) -> Double {
        var dot = 0.0, na = 0.0, nb = 0.0
        for (x, y) in zip(a, b) {
            dot += Double(x) * Double(y)
            na += Double(x) * Double(x)
            nb += Double(y) * Double(y)
        }
        return dot / (na.squareRoot() * nb.squareRoot())
    }

    /// The same pictures through the tower as published (F32 here) and through its Q8_0 copy: the
    /// image embeddings and the prompt's logits differ by int8 rounding only. Measured on this
    /// random-weight fixture (2026-12-02): embeddings cosine 0.99991 (frame) and 0.99984 (sliced
    /// photo), max |diff| 1.7 % and 3.5 % of the largest value; logits max |diff| 0.014 and 0.081 of
    /// 10. The bounds are about twice and four times those.
    func testTheInt8TowerStaysCloseToThePublishedOneAndToTransformers() throws {
        let dir = try Fixtures.scratch()
        let copy = try copy(of: Fixtures.mmproj47, in: dir)
        let published = try LlamaEngine(modelPath: Fixtures.model47, mmprojPath: Fixtures.mmproj47, clock: MonotonicClock())
        let int8 = try LlamaEngine(modelPath: Fixtures.model47, mmprojPath: Fixtures.mmproj47, towerPath: copy, clock: MonotonicClock())
        XCTAssertEqual(published.visionWeights, "f32")
        XCTAssertEqual(int8.visionWeights, "q8_0")
        XCTAssertEqual(int8.mmprojPath, Fixtures.mmproj47, "records name the user's file")
        struct Reference: Decodable {
            struct Case: Decodable { var picture: String, logits: [Float] }
            var question: String
            var cases: [String: Case]
        }
        let reference = try JSONDecoder().decode(Reference.self, from: Data(contentsOf: Fixtures.reference47))
        for (name, expected) in reference.cases.sorted(by: { $0.key < $1.key }) {
            let a = try embeddings(published, expected.picture)
            let b = try embeddings(int8, expected.picture)
            XCTAssertEqual(a.count, b.count)
            let similarity = cosine(a, b)
            let largest = a.map(abs).max() ?? 1
            let embeddingMiss = zip(a, b).map { abs($0 - $1) }.max() ?? .infinity
            let path = Fixtures.root.appendingPathComponent("Tests/Fixtures/models/\(expected.picture)").path
            let image = try PhotoDecoder.decode(path: path)
            let l8 = try int8.promptLogits(image: try int8.encode(image), prompt: reference.question).logits
            let lf = try published.promptLogits(image: try published.encode(image), prompt: reference.question).logits
            let logitMiss = zip(l8, lf).map { abs($0 - $1) }.max() ?? .infinity
            let transformersMiss = zip(l8, expected.logits).map { abs($0 - $1) }.max() ?? .infinity
            let top = expected.logits.map(abs).max() ?? 1
            print(
                "MEASURE int8 tower, \(name): embeddings cosine \(similarity), max |diff| \(embeddingMiss) (largest \(largest)); "
                    + "logits max |diff| \(logitMiss) against the published tower, \(transformersMiss) against transformers (largest \(top))")
            XCTAssertGreaterThan(similarity, 0.999, name)
            XCTAssertLessThan(embeddingMiss, 0.08 * largest, name)
            XCTAssertLessThan(logitMiss, 0.03 * top, name)
            XCTAssertEqual(l8.indices.max { l8[$0] < l8[$1] }, lf.indices.max { lf[$0] < lf[$1] }, "\(name): the same next token")
        }
    }

    func testASourceCutShortOrNotGGUFLeavesNoFile() throws {
        let dir = try Fixtures.scratch()
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.mmproj47))
        let cut = dir.appendingPathComponent("cut.gguf")
        try data.prefix(data.count - 5000).write(to: cut)
        let text = dir.appendingPathComponent("text.gguf")
        try Data("not a model".utf8).write(to: text)
        for source in [cut.path, text.path] {
            let target = dir.appendingPathComponent("out-Q8_0.gguf").path
            XCTAssertThrowsError(try VisionQuantizer.write(from: source, to: target)) { error in
                print("\(source): \(error)")
            }
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["cut.gguf", "text.gguf"], "no file, no partial")
        }
    }

    /// A disk that fills mid-copy (a file-size limit, which fails writes with EFBIG as a full disk
    /// fails them with ENOSPC): an error, and neither the copy nor its partial file is left.
    func testADiskThatFillsLeavesNoFile() throws {
        let dir = try Fixtures.scratch()
        let target = dir.appendingPathComponent("out-Q8_0.gguf").path
        var old = rlimit()
        getrlimit(Int32(RLIMIT_FSIZE.rawValue), &old)
        let oldSignal = signal(SIGXFSZ, SIG_IGN)
        var limited = old
        limited.rlim_cur = 200_000
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limited)
        let outcome = Result { try VisionQuantizer.write(from: Fixtures.mmproj47, to: target) }
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &old)
        signal(SIGXFSZ, oldSignal)
        guard case .failure(let error) = outcome else { return XCTFail("the copy should not fit") }
        XCTAssertTrue("\(error)".contains("could not be written"), "\(error)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [], "no file, no partial")
    }
}
