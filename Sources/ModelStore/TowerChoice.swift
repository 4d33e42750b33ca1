import Foundation
import LookCore
import Platform
import VLM

/// Which weights the vision tower runs when the user does not say (`--vision-weights`): the faster
/// on the CPU at hand, measured, not looked up in a table. The first time on a CPU, one tower layer's
/// matrix products are timed both ways (int8 and F16, taking turns, about a second); the choice is
/// remembered in the model cache (`tower-choice.json`), one entry for each CPU model, kernel set and
/// thread count, so later starts read it. Where the int8 tower loses, no int8 copy is made at all.
public struct TowerChoice: Codable, Sendable, Equatable {
    /// The CPU's model name (`/proc/cpuinfo`).
    public let cpu: String
    /// The kernels this build runs on it (`LlamaRuntime.Kernels.name`).
    public let kernels: String
    public let threads: Int
    /// `q8_0` or `f16`.
    public let weights: String
    public let int8Milliseconds: Double
    public let f16Milliseconds: Double

    public var choice: VisionWeights { VisionWeights(rawValue: weights) ?? .f16 }

    /// Why, in words: "one tower layer: 41 ms int8, 55 ms F16 (AVX-512 kernels, 2 threads, measured once)".
    public var reason: String {
        if int8Milliseconds.isNaN { return "not timed: the timing took over \(Int(Self.timingBound)) s on this CPU, so int8, the default" }
        return "one tower layer: \(Self.ms(int8Milliseconds)) int8, \(Self.ms(f16Milliseconds)) F16 (\(kernels) kernels, "
            + "\(threads) thread\(threads == 1 ? "" : "s"), measured once on this CPU)"
    }

    private static func ms(_ value: Double) -> String { String(format: "%.0f ms", value) }

    /// The choice for this CPU when it was measured already (in `cache`, or by this process); nil
    /// otherwise: nothing is timed (a command that loads no tower shows no timing).
    public static func known(cache: ModelCache = ModelCache(), threads: Int = CPUCores.physical()) -> TowerChoice? {
        let (cpu, kernels) = (cpuModel(), LlamaRuntime.kernels.name)
        if let hit = read(cache).first(where: { $0.cpu == cpu && $0.kernels == kernels && $0.threads == threads }) { return hit }
        return measured["\(cache.root)|\(threads)"]
    }

    /// The choice for this CPU: read from `cache`, or measured now and written there (a cache that
    /// cannot be written costs a measurement in each process that asks, nothing else).
    public static func current(cache: ModelCache = ModelCache(), threads: Int = CPUCores.physical()) -> TowerChoice {
        let cpu = cpuModel()
        let kernels = LlamaRuntime.kernels.name
        let known = read(cache)
        if let hit = known.first(where: { $0.cpu == cpu && $0.kernels == kernels && $0.threads == threads }) { return hit }
        // Measured once a process even where the cache cannot keep it (a reload or a check asks again).
        let key = "\(cache.root)|\(threads)"
        if let done = measured[key] { return done }
        FileHandle.standardError.write(Data("lookd: timing the vision tower's weights on this CPU, int8 against F16 (once)\n".utf8))
        // Timed on a thread of its own, for at most `timingBound` seconds: on a slow CPU (an emulated
        // one) the start goes on with int8, said once, and the timing, when it ends, is kept for the next.
        let timing = Timing { () -> TowerChoice in
            let choice = measure(cpu: cpu, kernels: kernels, threads: threads)
            write(read(cache) + [choice], to: cache)
            return choice
        }
        guard let choice = timing.wait(seconds: timingBound) else {
            let fallback = TowerChoice(cpu: cpu, kernels: kernels, threads: threads, weights: "q8_0", int8Milliseconds: .nan, f16Milliseconds: .nan)
            measured[key] = fallback
            Log.shared.warning(
                "the vision tower's timing took over \(Int(timingBound)) s on this CPU; the tower runs int8 (the default), and the timing, when it ends, is kept for the next start"
            )
            return fallback
        }
        measured[key] = choice
        return choice
    }

    /// The longest a start waits for the tower's timing.
    static let timingBound = 20.0

    /// A timing on a thread of its own, waited for a bounded while (real time: it measures the CPU).
    private final class Timing: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var result: TowerChoice?

        init(_ work: @escaping @Sendable () -> TowerChoice) {
            Thread { [self] in
                let choice = work()
                lock.withLock { result = choice }
                done.signal()
            }.start()
        }

        func wait(seconds: Double) -> TowerChoice? {
            guard done.wait(timeout: .now() + seconds) == .success else { return nil }
            return lock.withLock { result }
        }
    }

    private static let measured = Measured()

    /// What this process measured, by cache and thread count.
    private final class Measured: @unchecked Sendable {
        private let lock = NSLock()
        private var choices: [String: TowerChoice] = [:]

        subscript(key: String) -> TowerChoice? {
            get { lock.withLock { choices[key] } }
            set { lock.withLock { choices[key] = newValue } }
        }
    }

    /// One tower layer timed both ways, taking turns twice; the best of each.
    static func measure(cpu: String, kernels: String, threads: Int) -> TowerChoice {
        var int8 = Double.infinity
        var f16 = Double.infinity
        for _ in 0..<2 {
            int8 = min(int8, LlamaRuntime.towerLayerSeconds(.q8_0, threads: threads) ?? .infinity)
            f16 = min(f16, LlamaRuntime.towerLayerSeconds(.f16, threads: threads) ?? .infinity)
        }
        return TowerChoice(
            cpu: cpu, kernels: kernels, threads: threads, weights: int8 < f16 ? "q8_0" : "f16",
            int8Milliseconds: int8 * 1000, f16Milliseconds: f16 * 1000)
    }

    static func path(_ cache: ModelCache) -> String { (cache.root as NSString).appendingPathComponent("tower-choice.json") }

    static func read(_ cache: ModelCache) -> [TowerChoice] {
        // Only a file of this user's own is trusted (another user's link or file would forge a choice).
        guard let data = RegularFile.readOwn(path(cache), limit: 1 << 20) else { return [] }
        return (try? JSONDecoder().decode([TowerChoice].self, from: Data(data))) ?? []
    }

    private static func write(_ choices: [TowerChoice], to cache: ModelCache) {
        guard SafePath.problem(cache.root, what: "model cache") == nil else { return }
        try? FileManager.default.createDirectory(atPath: cache.root, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(choices) else { return }
        try? SafeFile.write(data, to: path(cache))
    }

    /// The CPU's model name, as `/proc/cpuinfo` gives it ("unknown CPU" where it says none).
    static func cpuModel(cpuinfo: String = "/proc/cpuinfo") -> String {
        guard case .bytes(let data) = BoundedRead.read(cpuinfo, limit: 1 << 22) else { return "unknown CPU" }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") { return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces) }
        }
        return "unknown CPU"
    }
}
