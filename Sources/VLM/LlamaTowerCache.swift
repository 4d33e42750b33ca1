internal import CLlama
import Foundation
import LookCore

/// A camera's kept vision-tower results (`lookd_reuse`, tools/patches/mtmd-clip-reuse.patch), made
/// for one engine: the engine refuses another's. Used under the engine's lock.
final class LlamaTowerCache: TowerCache, @unchecked Sendable {
    let pointer: OpaquePointer
    /// The engine it was made by (weak: an engine made later at the same address is not it).
    weak var owner: LlamaEngine?
    private let lock = NSLock()

    init(owner: LlamaEngine, reuse: TowerReuse) {
        pointer = mtmd_lookd_reuse_init(Float(reuse.threshold), Float(reuse.bound), Int32(reuse.refresh))
        self.owner = owner
    }

    deinit { mtmd_lookd_reuse_free(pointer) }

    func drop() { lock.withLock { mtmd_lookd_reuse_drop(pointer) } }

    /// The last encode's figures for one image part.
    func last() -> (computed: Int, tokens: Int, reused: Bool, bytes: Int) {
        lock.withLock {
            var (changed, total, reused, bytes): (Int32, Int32, Bool, Int) = (0, 0, false, 0)
            mtmd_lookd_reuse_stats(pointer, &changed, &total, &reused, &bytes)
            return (Int(changed), Int(total), reused, bytes)
        }
    }

    var bytes: Int { last().bytes }

    /// Runs `body` with the cache in force for the picture's `part`-th image chunk.
    func using<T>(_ vision: OpaquePointer, part: Int, _ body: () throws -> T) rethrows -> T {
        try lock.withLock {
            mtmd_lookd_set_reuse(vision, pointer, Int32(part))
            defer { mtmd_lookd_set_reuse(vision, nil, 0) }
            return try body()
        }
    }
}
