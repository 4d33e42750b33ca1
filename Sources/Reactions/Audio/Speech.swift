internal import CEspeak
import Foundation
import Media

/// Speaks lines with espeak-ng (English), synthesized into memory and played like any other clip.
/// espeak-ng keeps global state (and starts a thread of its own at each initialisation), so the
/// process has one: `Speech.shared`, which every camera's reactor uses, a line at a time.
public final class Speech: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { "espeak-ng cannot speak: \(reason)." }
    }

    private let lock = NSLock()
    private let rate: Int

    /// The process's one espeak-ng, initialised the first time it is asked for.
    public static func shared() throws(Failure) -> Speech { try made.get() }
    private static let made = Result { () throws(Failure) in try Speech(voice: "en") }

    private init(voice: String) throws(Failure) {
        let r = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, 0)
        guard r > 0 else { throw Failure(reason: "its data was not found (is espeak-ng-data installed?)") }
        rate = Int(r)
        guard espeak_SetVoiceByName(voice) == EE_OK else { throw Failure(reason: "it has no voice \"\(voice)\"") }
        espeak_SetSynthCallback { wav, count, _ in
            guard let wav, count > 0 else { return 0 }
            Collector.current.append(UnsafeBufferPointer(start: wav, count: Int(count)))
            return 0
        }
    }

    /// The line as sound.
    public func synthesize(_ line: String) throws(Failure) -> AudioClip {
        lock.lock()
        defer { lock.unlock() }
        Collector.current.reset()
        let bytes = Array(line.utf8CString)
        let status = bytes.withUnsafeBufferPointer { text in
            espeak_Synth(text.baseAddress, text.count, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, nil)
        }
        guard status == EE_OK else { throw Failure(reason: "synthesis failed (status \(status.rawValue))") }
        let samples = Collector.current.take()
        guard !samples.isEmpty else { throw Failure(reason: "the line gave no sound") }
        return AudioClip(samples: samples, rate: rate)
    }

    /// Where the C callback puts samples (used only under `lock`).
    private final class Collector: @unchecked Sendable {
        static let current = Collector()
        private var samples: [Int16] = []
        func reset() { samples = [] }
        func append(_ more: UnsafeBufferPointer<Int16>) { samples.append(contentsOf: more) }
        func take() -> [Int16] { defer { samples = [] }; return samples }
    }
}
