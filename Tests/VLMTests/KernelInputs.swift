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
