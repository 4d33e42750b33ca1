internal import CLlama
import Foundation
import LookCore

/// llama.cpp's process-wide state: the backend, started once, and its log lines, which go through
/// lookd's logger (llama.cpp's errors at info, the rest at debug: quiet by default) and are kept in a
/// short ring so that a failed load can say why.
public enum LlamaRuntime {
    /// The llama.cpp this lookd was built with, as the error sentences name it
    /// (`of 2026-10-01 (vendored in llama-cpp-python 0.3.36), with BLAS + CPU`).
    static var build: String {
        "\(String(cString: lookd_llama_build())), with \(backends.joined(separator: " + "))"
    }

    /// The compute backends this llama.cpp registered (`CPU`, `BLAS`, …).
    static var backends: [String] {
        start()
        return (0..<ggml_backend_reg_count()).map { String(cString: ggml_backend_reg_name(ggml_backend_reg_get($0))) }
    }

    private static let started: Void = {
        llama_log_set(route, nil)
        mtmd_helper_log_set(route, nil)
        llama_backend_init()
    }()

    static func start() { _ = started }

    /// A probe of the build: how many of `count` denormal results ggml's CPU threads flushed to zero
    /// (`count` with lookd's patch `tools/patches/ggml-flush-denormals.patch`, 0 without it or with
    /// `GGML_CPU_KEEP_DENORMALS=1`). Denormals cost x86 a microcode assist at each FMA: flushed, the
    /// vision tower's attention runs several times faster. `count` is a multiple of 16.
    static func flushedDenormals(threads: Int, count: Int = 256) -> Int {
        start()
        return Int(lookd_ggml_flushed_denormals(Int32(threads), Int32(count)))
    }

    /// One matrix product on ggml's CPU backend, as a model's layer makes it: `n` rows of `k` inputs
    /// times `m` rows of `k` weights stored as `type` (F16, BF16 or Q8_0), on `threads` threads. The
    /// product (`n` rows of `m`) and the weights as stored, back in F32. With `n` of 2 or more the
    /// product runs lookd's kernels (`tools/patches/ggml-cpu-gemm.patch`); with `n` = 1, ggml's own dot
    /// products. A probe of the build for its tests, as `flushedDenormals` is.
    static func matMul(type: WeightType, weights: [Float], input: [Float], m: Int, n: Int, k: Int, threads: Int)
        -> (product: [Float], weights: [Float])?
    {
        start()
        let type: ggml_type =
            switch type {
            case .f16: GGML_TYPE_F16
            case .bf16: GGML_TYPE_BF16
            case .q8_0: GGML_TYPE_Q8_0
            }
        var product = [Float](repeating: 0, count: m * n)
        var stored = [Float](repeating: 0, count: m * k)
        let status = lookd_ggml_mul_mat(
            Int32(type.rawValue), weights, input, Int32(m), Int32(n), Int32(k), Int32(threads), &product, &stored)
        return status == 0 ? (product, stored) : nil
    }

    /// GELU (its tanh form, as the vision tower's feed-forward applies it) of `values` on ggml's CPU
    /// backend. lookd's patch (`tools/patches/ggml-cpu-attention-gelu.patch`) computes it in F32 where
    /// the build has AVX-512; upstream reads an F16 table. A probe of the build for its tests.
    static func gelu(_ values: [Float]) -> [Float]? {
        start()
        var out = [Float](repeating: 0, count: values.count)
        return lookd_ggml_gelu(values, Int32(values.count), &out) == 0 ? out : nil
    }

    /// Attention as the vision tower computes it (libmtmd's flash path, keys and values stored F16) on
    /// ggml's CPU backend: for each of `heads` heads, `softmax(scale q kᵀ) v` over `queries` rows of
    /// `q` and `keys` rows of `k` and `v`, all `width` wide, each head's rows one block after another.
    /// The result (`queries` rows of `heads × width`) and the keys and values as stored, back in F32.
    /// With 64 queries or more ggml takes its tiled path, where lookd's patch
    /// (`tools/patches/ggml-cpu-attention-gelu.patch`) converts each head's keys and values once. A probe
    /// of the build for its tests.
    static func attention(
        q: [Float], k: [Float], v: [Float], width: Int, queries: Int, keys: Int, heads: Int, scale: Float, threads: Int
    ) -> (result: [Float], k: [Float], v: [Float])? {
        start()
        var result = [Float](repeating: 0, count: width * queries * heads)
        var kUsed = [Float](repeating: 0, count: k.count)
        var vUsed = [Float](repeating: 0, count: v.count)
        let status = lookd_ggml_attention(
            q, k, v, Int32(width), Int32(queries), Int32(keys), Int32(heads), scale, Int32(threads), &result, &kUsed, &vUsed)
        return status == 0 ? (result, kUsed, vUsed) : nil
    }

    /// Which of lookd's kernels (`tools/patches/ggml-cpu-gemm.patch`, `ggml-cpu-attention-gelu.patch`)
    /// run: the widest this build compiled and this CPU has, capped by `LOOKD_KERNELS` (`avx2`,
    /// `avxvnni`). A build without the patches runs upstream's paths.
    public enum Kernels: Int, Sendable, Comparable {
        case upstream = 0, avx2, avxVNNI, avx512

        public var name: String {
            switch self {
            case .upstream: "upstream's"
            case .avx2: "AVX2"
            case .avxVNNI: "AVX-VNNI"
            case .avx512: "AVX-512"
            }
        }

        public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    }

    public static var kernels: Kernels {
        start()
        return Kernels(rawValue: Int(lookd_ggml_kernels())) ?? .upstream
    }

    /// Caps the kernels from here on at `name` (`avx2`, `avxvnni`; nil: the widest again), as
    /// `LOOKD_KERNELS` does at start: for the tests of the narrower paths on a CPU with more.
    @discardableResult
    static func forceKernels(_ name: String?) -> Kernels {
        start()
        return Kernels(rawValue: Int(lookd_ggml_force_kernels(name ?? ""))) ?? .upstream
    }

    /// The seconds one layer of MiniCPM-V 4.7's vision tower takes for its matrix products on this
    /// CPU, its weights stored as `weights` (F16 as published, or Q8_0 as lookd's int8 copy holds
    /// them), for a slice's `tokens`: the best of `runs`. Random weights: the time is the kernels' and
    /// the shapes', not the values'. Nil if ggml could not start.
    public static func towerLayerSeconds(_ weights: VisionWeights, tokens: Int = 264, threads: Int, runs: Int = 2) -> Double? {
        start()
        let type = weights == .q8_0 ? GGML_TYPE_Q8_0 : GGML_TYPE_F16
        let seconds = lookd_ggml_tower_layer_seconds(Int32(type.rawValue), Int32(tokens), Int32(threads), Int32(runs))
        return seconds > 0 ? seconds : nil
    }

    /// How `matMul` stores its weights.
    enum WeightType { case f16, bf16, q8_0 }

    /// The latest complete log lines from llama.cpp (at most 64).
    static func recentLines() -> [String] { lines.recent() }
    static func clearRecent() { lines.clear() }

    /// The first error line llama.cpp logged since the last clear, without its prefixes.
    static func firstError() -> String? {
        let lines = recentLines()
        return (lines.first { $0.contains("error") } ?? lines.last { $0.contains("failed") }).map(clean)
    }

    /// A log line without llama.cpp's `function: ` and `error: ` prefixes.
    static func clean(_ line: String) -> String {
        var s = Substring(line)
        while let colon = s.range(of: ": "), s[..<colon.lowerBound].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
            s = s[colon.upperBound...]
        }
        for prefix in ["error loading model: ", "error: "] where s.hasPrefix(prefix) { s = s.dropFirst(prefix.count) }
        return s.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "."))
    }

    fileprivate static let lines = LineRing(capacity: 64)
}

/// Collects llama.cpp's log fragments into lines.
final class LineRing: @unchecked Sendable {
    private let lock = NSLock()
    private var partial = ""
    private var ring: [String] = []
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Adds a fragment; returns the lines it completed.
    func add(_ fragment: String) -> [String] {
        lock.withLock {
            partial += fragment
            var done: [String] = []
            while let newline = partial.firstIndex(of: "\n") {
                let line = String(partial[..<newline])
                partial = String(partial[partial.index(after: newline)...])
                if !line.isEmpty { done.append(line) }
            }
            ring.append(contentsOf: done)
            if ring.count > capacity { ring.removeFirst(ring.count - capacity) }
            return done
        }
    }

    func recent() -> [String] { lock.withLock { ring } }
    func clear() {
        lock.withLock {
            ring = []; partial = ""
        }
    }
}

private func route(_ level: ggml_log_level, _ text: UnsafePointer<CChar>?, _: UnsafeMutableRawPointer?) {
    guard let text else { return }
    let completed = LlamaRuntime.lines.add(String(cString: text))
    let lookLevel: Log.Level = (level == GGML_LOG_LEVEL_ERROR || level == GGML_LOG_LEVEL_WARN) ? .info : .debug
    for line in completed { Log.shared.log(lookLevel, "llama.cpp: \(line)") }
}
