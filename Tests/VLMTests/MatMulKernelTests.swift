import Foundation
import XCTest

@testable import VLM

/// lookd's patch tools/patches/ggml-cpu-gemm.patch: the products of 2 or more rows at once (the vision
/// tower's F16 or BF16 weights, the language model's Q8_0 prefill) run lookd's own kernels. Each case
/// is shaped to reach every edge of them (a 32-row panel and a 16-row one, a full 12- or 8-token tile
/// and a part one, k not a multiple of the packed chunk), on 1 and 2 threads. Without the patch, or
/// with LOOKD_UPSTREAM_GEMM=1, the F16 case fails: upstream rounds the inputs to F16 first.
final class MatMulKernelTests: XCTestCase {
    /// The largest error of `product` against the exact product of `weights` and `input`, each relative
    /// to its row's sum of |w x| (what F32 rounding scales with).
    private func worstError(_ product: [Float], _ weights: [Float], _ input: [Float], m: Int, n: Int, k: Int) -> Double {
        var worst = 0.0
        for j in 0..<n {
            for i in 0..<m {
                var exact = 0.0
                var size = 0.0
                for l in 0..<k {
                    let p = Double(weights[i * k + l]) * Double(input[j * k + l])
                    exact += p
                    size += abs(p)
                }
                worst = max(worst, abs(Double(product[j * m + i]) - exact) / size)
            }
        }
        return worst
    }

    func testF16AndBF16WeightsTimesF32InputsAreTheExactProductToF32Rounding() throws {
        for type in [LlamaRuntime.WeightType.f16, .bf16] {
            for (m, n, k) in [(48, 13, 300), (32, 12, 128), (16, 2, 17), (48, 300, 64), (1152, 14, 256)] {
                for threads in [1, 2] {
                    let w = KernelInputs.values(m * k, seed: UInt64(m * 31 + k)), x = KernelInputs.values(n * k, seed: UInt64(n * 17 + k))
                    let r = try XCTUnwrap(LlamaRuntime.matMul(type: type, weights: w, input: x, m: m, n: n, k: k, threads: threads))
                    let error = worstError(r.product, r.weights, x, m: m, n: n, k: k)
                    // F32 sums of k products: a few 1e-7 at most. Inputs rounded to F16 first (upstream's
                    // tinyBLAS path, all a build without AVX-512 has) give about 1e-4, to BF16 about 1e-3.
                    let bound = LlamaRuntime.kernels.f16 ? 2e-6 : 1e-2
                    XCTAssertLessThan(error, bound, "\(type) \(m) x \(n) x \(k), \(threads) threads")
                }
            }
        }
    }

    func testQ8_0ProductsOfManyRowsAreGGMLsOwnDotProductsOneRowAtATime() throws {
        for (m, n, k) in [(48, 11, 288), (16, 8, 32), (32, 2, 64), (1024, 21, 1024)] {
            for threads in [1, 2] {
                let w = KernelInputs.values(m * k, seed: UInt64(m * 7 + k)), x = KernelInputs.values(n * k, seed: UInt64(n * 5 + k))
                let all = try XCTUnwrap(LlamaRuntime.matMul(type: .q8_0, weights: w, input: x, m: m, n: n, k: k, threads: threads))
                var worst: Float = 0
                var largest: Float = 0
                for j in 0..<n {
                    let row = Array(x[(j * k)..<((j + 1) * k)])
                    let one = try XCTUnwrap(LlamaRuntime.matMul(type: .q8_0, weights: w, input: row, m: m, n: 1, k: k, threads: 1))
                    for i in 0..<m {
                        worst = max(worst, abs(all.product[j * m + i] - one.product[i]))
                        largest = max(largest, abs(one.product[i]))
                    }
                }
                // The same integer dot products block by block; only the F32 rounding of the scaled
                // sums differs. A wrong block, scale or row would be off by about the values themselves.
                XCTAssertLessThan(worst, largest * 1e-5, "\(m) x \(n) x \(k), \(threads) threads")
                XCTAssertGreaterThan(largest, 1, "the products are not all zero")
            }
        }
    }
}
