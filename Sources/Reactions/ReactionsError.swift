/// The Reactions module: sounds, speech, timers, counts, log lines and effects. It is filled by the
/// watch, sound and effects issues; for now it holds the module's error type.
public enum ReactionsError: Error, CustomStringConvertible, Equatable {
    /// No sound server to play through.
    case noSoundServer(reason: String)

    public var description: String {
        switch self {
        case .noSoundServer(let reason): return "No sound server: \(reason)."
        }
    }
}
