import Foundation
import XCTest

@testable import VLM

/// lookd's patch tools/patches/ggml-cpu-attention-gelu.patch: the vision tower's attention converts each
/// head's keys and values once (not once per 64 queries) and computes only a tile's own rows, and its
/// GELU runs 16 lanes at a time in F32. The attention cases reach a head's last, part-filled tile of
/// queries and of keys, several heads, and 1 and 2 threads (each thread holds its own head).
final class AttentionKernelTests: XCTestCase {
    func testTiledAttentionIsSoftmaxOfTheScaledScoresTimesTheValues() throws {
        try KernelPaths.each { path in try tiledAttention(path) }
    }

    private func tiledAttention(_ path: LlamaRuntime.Kernels) throws {
        // (width, queries, keys, heads): the tower's 72-wide heads at its two token counts, trimmed
        for (width, queries, keys, heads) in [(72, 100, 130, 3), (72, 264, 264, 1), (64, 64, 64, 2), (72, 70, 7, 4)] {
            let q = KernelInputs.values(width * queries * heads, seed: UInt64(queries * 13 + width))
            let k = KernelInputs.values(width * keys * heads, seed: UInt64(keys * 7 + heads))
            let v = KernelInputs.values(width * keys * heads, seed: UInt64(keys * 3 + width))
            // Peaked enough that the softmax is far from uniform (scores span about ±6).
            let scale = 2 / Float(width).squareRoot()
            let shape = "\(width) wide, \(queries) queries, \(keys) keys, \(heads) heads, \(path.name)"
            var exact: [Double] = []
            for threads in [1, 2] {
                let r = try XCTUnwrap(
                    LlamaRuntime.attention(
                        q: q, k: k, v: v, width: width, queries: queries, keys: keys, heads: heads, scale: scale, threads: threads))
                if exact.isEmpty {
                    exact = attention(q: q, k: r.k, v: r.v, width: width, queries: queries, keys: keys, heads: heads, scale: scale)
                    let spread = exact.max()! - exact.min()!
                    XCTAssertGreaterThan(spread, 0.2, "the results are not all alike: \(shape)")
                }
                let worst = zip(r.result, exact).map { abs(Double($0) - $1) }.max() ?? .infinity
                // F32 sums over a few hundred terms: about 1e-6. A wrong head, tile or row is off by
                // about the spread of the results (0.3 to 0.4 here).
                XCTAssertLessThan(worst, 1e-4, "\(shape), \(threads) threads")
            }
        }
    }

    /// softmax(scale q kᵀ) v in Double, in ggml_flash_attn_ext's layout (each query's heads side by side).
    private func attention(q: [Float], k: [Float], v: [Float], width: Int, queries: Int, keys: Int, heads: Int, scale: Float)
        -> [Double]
    {
        var out = [Double](repeating: 0, count: width * queries * heads)
        for h in 0..<heads {
            for i in 0..<queries {
                let qi = (h * queries + i) * width
                var weights = [Double](repeating: 0, count: keys)
                for j in 0..<keys {
                    let kj = (h * keys + j) * width
                    var dot = 0.0
                    for d in 0..<width { dot += Double(q[qi + d]) * Double(k[kj + d]) }
                    weights[j] = dot * Double(scale)
                }
                let top = weights.max() ?? 0
                var sum = 0.0
                for j in 0..<keys {
                    weights[j] = exp(weights[j] - top)
                    sum += weights[j]
                }
                let o = (i * heads + h) * width
                for j in 0..<keys {
                    let p = weights[j] / sum
                    let vj = (h * keys + j) * width
                    for d in 0..<width { out[o + d] += p * Double(v[vj + d]) }
                }
            }
        }
        return out
    }

    func testGELUIsItsTanhFormInF32() throws {
        try KernelPaths.each { path in try gelu(path) }
    }

    private func gelu(_ path: LlamaRuntime.Kernels) throws {
        // -12 to 12 in steps of 0.001, 24,001 values: not a multiple of 16, and both ends past ±10
        let x = (0...24_000).map { Float($0) / 1000 - 12 }
        let y = try XCTUnwrap(LlamaRuntime.gelu(x))
        var worst = 0.0
        for (xi, yi) in zip(x, y) {
            let d = Double(xi)
            let exact = d <= -10 ? 0 : d >= 10 ? d : 0.5 * d * (1 + tanh(0.797_884_560_802_865_4 * d * (1 + 0.044_715 * d * d)))
            worst = max(worst, abs(Double(yi) - exact) / max(abs(d), 1e-3))
        }
        // F32 arithmetic: a few 1e-7 of |x|. Upstream's F16 table (a build without lookd's kernels)
        // rounds the input and the result to F16: about 1e-3.
        let bound = path == .upstream ? 2e-3 : 2e-6
        XCTAssertLessThan(worst, bound, path.name)
    }
}
