/// The questions that ask the model where a thing is (each a new session with the same frame).
public enum PlaceQuestions {
    /// `--cells box` (the default): the model's own grounding form; at most 48 answer tokens.
    public static func box(_ condition: String) -> String {
        "Detect \(condition) in the picture and output its bounding box."
    }
    public static let boxTokens = 48

    /// `--cells ask`: a cell number; at most 8 answer tokens.
    public static func cell(_ condition: String) -> String {
        "Which cell of a 3x3 grid (1-9, numbered left to right, top to bottom) contains \(condition)? Answer with the number only."
    }
    public static let cellTokens = 8

    /// `--cells batch`: the place asked inside the yes/no prompt, a cell number after each Yes.
    public static let batch =
        "After a Yes, write the cell of a 3x3 grid (1-9, numbered left to right, top to bottom) that contains it, as in: 1. Yes 5"

    /// `--cells ask --cell-words`: two place words.
    public static func cellWords(_ condition: String) -> String {
        "Where in the picture is \(condition)? Answer with two words: left, center or right; then top, middle or bottom."
    }
}

/// How lookd learns where an effect's thing is (`--cells`).
public enum PlaceForm: String, Sendable, CaseIterable {
    /// The box question, for each effect rule that turns yes (the default).
    case box
    /// The cell question (or, with `--cell-words`, two place words), for each rule that turns yes.
    case ask
    /// The cell number asked inside the yes/no prompt.
    case batch
    /// Nothing asked: effects play on the whole frame.
    case none
}
