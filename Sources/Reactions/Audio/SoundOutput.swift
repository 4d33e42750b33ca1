internal import CPulse
import Foundation
import LookCore
import Media

/// Plays clips through PulseAudio without blocking the caller: each play is a stream of its own on a
/// thread of its own, so clips overlap and mix with other audio. Each play reports when its sound
/// started and how long it lasted, or why it failed. With no server, each play fails at once with a
/// sentence; the next play tries to connect again.
public final class SoundOutput: @unchecked Sendable {
    /// What one play did. Times are seconds from the request.
    public struct Played: Sendable {
        public var name: String
        /// Until the stream was open and the first samples were written.
        public var started: Double?
        /// How long the sound played: from the first write until the server drained the stream (the
        /// clip's length plus the output's latency).
        public var lasted: Double?
        public var clipSeconds: Double
        public var error: String?
    }

    /// The server to use: nil for PulseAudio's default (`PULSE_SERVER`, then the user's session).
    public let server: String?
    private let clock: any Clock
    private let lock = NSLock()
    private var lastFailure: String?

    public init(server: String? = nil, clock: any Clock) { (self.server, self.clock) = (server, clock) }

    /// How many of this output's plays are in progress.
    public var playing: Int { lock.withLock { active } }
    private var active = 0

    /// Connects a stream for `clip` now (a few milliseconds; a missing server fails at once, with
    /// the sentence returned) and plays it on a thread of its own; `done` is called there when it
    /// has played or failed.
    @discardableResult
    public func play(_ clip: AudioClip, name: String, done: @escaping @Sendable (Played) -> Void = { _ in }) -> String? {
        let requested = clock.now()
        let stream: Stream
        switch connect(clip, name: name) {
        case .failure(let failure): return failure.reason
        case .success(let s): stream = s
        }
        lock.withLock { active += 1 }
        let thread = Thread { [self] in
            done(self.run(stream, clip, name: name, requested: requested))
            lock.withLock { active -= 1 }
        }
        thread.name = "lookd sound \(name)"
        thread.start()
        return nil
    }

    /// Plays `clip` on this thread, returning when it has played.
    public func playAndWait(_ clip: AudioClip, name: String) -> Played {
        let requested = clock.now()
        switch connect(clip, name: name) {
        case .failure(let failure):
            return Played(name: name, started: nil, lasted: nil, clipSeconds: clip.duration, error: failure.reason)
        case .success(let stream):
            return run(stream, clip, name: name, requested: requested)
        }
    }

    /// An open playback stream.
    private final class Stream: @unchecked Sendable {
        let handle: OpaquePointer
        init(_ handle: OpaquePointer) { self.handle = handle }
        deinit { pa_simple_free(handle) }
    }

    private struct ConnectFailure: Error { let reason: String }

    private func connect(_ clip: AudioClip, name: String) -> Result<Stream, ConnectFailure> {
        var spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: UInt32(clip.rate), channels: UInt8(clip.channels))
        var error: Int32 = 0
        // A short target buffer (100 ms): the sound starts soon, and drain ends soon after it.
        let bytesPerSecond = UInt32(clip.rate * clip.channels * 2)
        var buffer = pa_buffer_attr(
            maxlength: UInt32.max, tlength: bytesPerSecond / 10, prebuf: UInt32.max,
            minreq: UInt32.max, fragsize: UInt32.max)
        guard let handle = pa_simple_new(server, "lookd", PA_STREAM_PLAYBACK, nil, name, &spec, nil, &buffer, &error) else {
            let reason = "no sound server (\(String(cString: pa_strerror(error))))"
            report(failure: reason)
            return .failure(ConnectFailure(reason: reason))
        }
        return .success(Stream(handle))
    }

    private func run(_ s: Stream, _ clip: AudioClip, name: String, requested: Double) -> Played {
        var played = Played(name: name, started: nil, lasted: nil, clipSeconds: clip.duration, error: nil)
        var error: Int32 = 0
        let stream = s.handle
        let firstWrite = clock.now()
        let ok = clip.samples.withUnsafeBytes { bytes in
            pa_simple_write(stream, bytes.baseAddress, bytes.count, &error) >= 0
        }
        guard ok else {
            played.error = "the sound server went away (\(String(cString: pa_strerror(error))))"
            report(failure: played.error!)
            return played
        }
        played.started = firstWrite - requested
        guard pa_simple_drain(stream, &error) >= 0 else {
            played.error = "the sound server went away (\(String(cString: pa_strerror(error))))"
            report(failure: played.error!)
            return played
        }
        played.lasted = clock.now() - firstWrite
        lock.withLock { lastFailure = nil }
        return played
    }

    /// One error line per outage, not one per sound.
    private func report(failure: String) {
        let isNew = lock.withLock { () -> Bool in
            defer { lastFailure = failure }
            return lastFailure != failure
        }
        if isNew { Log.shared.error("sound: \(failure); reactions that play sound fail until it is back") }
    }
}
