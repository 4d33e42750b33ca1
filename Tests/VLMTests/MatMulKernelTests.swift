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

    /// lookd builds llama.cpp for the machine it is on: the widest kernels this CPU has run, and the
    /// narrower ones can be forced (a build or a choice that fell back to upstream's paths fails here).
    func testTheWidestKernelsThisCPUHasRun() throws {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let flags = Set(info.split(separator: "\n").first { $0.hasPrefix("flags") }?.split(separator: " ").map(String.init) ?? [])
        let expected: LlamaRuntime.Kernels =
            flags.isSuperset(of: ["avx512f", "avx512bw", "avx512vl"])
            ? .avx512
            : !flags.isSuperset(of: ["avx2", "fma", "f16c"])
                ? .upstream : flags.contains("avx_vnni") || flags.isSuperset(of: ["avx512_vnni", "avx512vl"]) ? .avxVNNI : .avx2
        XCTAssertEqual(LlamaRuntime.kernels, expected, "flags: \(flags.filter { $0.hasPrefix("avx") }.sorted())")
        XCTAssertEqual(KernelPaths.available, [LlamaRuntime.Kernels.avx512, .avxVNNI, .avx2].filter { $0 <= expected })
    }

    func testF16AndBF16WeightsTimesF32InputsAreTheExactProductToF32Rounding() throws {
        try KernelPaths.each { path in try f16AndBF16(path) }
    }

    private func f16AndBF16(_ path: LlamaRuntime.Kernels) throws {
        for type in [LlamaRuntime.WeightType.f16, .bf16] {
            for (m, n, k) in [(48, 13, 300), (32, 12, 128), (16, 2, 17), (48, 300, 64), (1152, 14, 256), (24, 7, 40), (8, 3, 9)] {
                for threads in [1, 2] {
                    let w = KernelInputs.values(m * k, seed: UInt64(m * 31 + k)), x = KernelInputs.values(n * k, seed: UInt64(n * 17 + k))
                    let r = try XCTUnwrap(LlamaRuntime.matMul(type: type, weights: w, input: x, m: m, n: n, k: k, threads: threads))
                    let error = worstError(r.product, r.weights, x, m: m, n: n, k: k)
                    // F32 sums of k products: a few 1e-7 at most. Inputs rounded to F16 first (upstream's
                    // tinyBLAS path, all a build without lookd's kernels has) give about 1e-4, to BF16 about 1e-3.
                    let bound = path == .upstream ? 1e-2 : 2e-6
                    XCTAssertLessThan(error, bound, "\(type) \(m) x \(n) x \(k), \(threads) threads, \(path.name)")
                }
            }
        }
    }

    func testQ8_0ProductsOfManyRowsAreGGMLsOwnDotProductsOneRowAtATime() throws {
        try KernelPaths.each { path in try q8_0(path) }
    }

    private func q8_0(_ path: LlamaRuntime.Kernels) throws {
        for (m, n, k) in [(48, 11, 288), (16, 8, 32), (32, 2, 64), (1024, 21, 1024), (24, 5, 96), (8, 3, 32)] {
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
                XCTAssertLessThan(worst, largest * 1e-5, "\(m) x \(n) x \(k), \(threads) threads, \(path.name)")
                XCTAssertGreaterThan(largest, 1, "the products are not all zero")
            }
        }
    }
}
