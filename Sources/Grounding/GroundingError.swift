/// The Grounding module: box and cell questions, their parsers and the 3 × 3 grid. It is filled by
/// the grounding issue; for now it holds the module's error type.
public enum GroundingError: Error, CustomStringConvertible, Equatable {
    /// The answer named no place (the edit then plays on the whole frame).
    case noPlace(answer: String)

    public var description: String {
        switch self {
        case .noPlace(let answer): return "The answer \"\(answer.prefix(80))\" names no place in the picture."
        }
    }
}
