/// Why a watch ended with an error; each description is the sentence a user reads. The command
/// line maps them to exit codes.
public enum WatchError: Error, CustomStringConvertible, Equatable {
    /// The source failed while running (a file that broke, a stream that ended in an error).
    case source(String)
    /// A camera of several whose source could not be opened (the others were watched).
    case notOpened(String)
    /// The model failed on a frame's question, or on a fired rule's place question.
    case model(frame: Int, reason: String)
    case place(frame: Int, reason: String)
    /// The model failed on this many frames in a row (the run ends so that systemd restarts lookd).
    case failedInARow(count: Int, reason: String)
    /// The rules cannot be asked (their question and answer do not fit the model's context).
    case rules(String)
    /// A record could not be made or written.
    case record(String)
    /// An output (MQTT) could not be set up.
    case output(String)

    public var description: String {
        switch self {
        case .source(let reason), .notOpened(let reason), .record(let reason), .rules(let reason), .output(let reason): return reason
        case .model(let frame, let reason): return "FAILED: the model failed on frame \(frame): \(reason)"
        case .place(let frame, let reason): return "FAILED: the model failed on frame \(frame)'s place question: \(reason)"
        case .failedInARow(let count, let reason): return "FAILED: the model failed on \(count) frames in a row; the last: \(reason)"
        }
    }
}
