@testable import VLM

/// Inputs for the tests of lookd's ggml kernels (MatMulKernelTests, AttentionKernelTests).
enum KernelInputs {
    /// Deterministic values in [-1, 1).
    static func values(_ count: Int, seed: UInt64) -> [Float] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int64(bitPattern: state >> 11) % 2_000_000) / 1_000_000 - 1
        }
    }
}

/// Every set of lookd's kernels this CPU can run: the widest (what a run takes), then each narrower
/// one forced (`LlamaRuntime.forceKernels`), so that an AVX-512 machine tests the AVX2 paths too.
enum KernelPaths {
    static var available: [LlamaRuntime.Kernels] {
        let widest = LlamaRuntime.forceKernels(nil)
        return [LlamaRuntime.Kernels.avx512, .avxVNNI, .avx2].filter { $0 <= widest }
    }

    /// Runs `body` on each path, the path in force while it runs; the widest again after.
    static func each(_ body: (LlamaRuntime.Kernels) throws -> Void) rethrows {
        defer { LlamaRuntime.forceKernels(nil) }
        let paths = available
        if paths.isEmpty { try body(.upstream) }
        for path in paths {
            let forced = LlamaRuntime.forceKernels(path == .avx512 ? nil : path == .avxVNNI ? "avxvnni" : "avx2")
            precondition(forced == path, "forced \(path), got \(forced)")
            try body(path)
        }
    }
}
