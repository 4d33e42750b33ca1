import LookCore

/// Answers to a numbered yes/no prompt read under constraint: the text can only be `1. Yes|No`, a
/// line break, `2. Yes|No`, … so it always parses; at each choice the model's preference between its
/// Yes and its No token gives a confidence.
public struct YesNoAnswers: Sendable {
    /// The answer as written (`1. Yes\n2. No`), with its timings.
    public var generation: Generation
    /// Each line's choice, and P(yes) normalised over the Yes and No tokens (0–1).
    public var yes: [Bool]
    public var confidence: [Double]
    /// llama_decode calls after the prompt (the forced tokens go in batches, one a line).
    public var decodeSteps: Int

    public init(generation: Generation, yes: [Bool], confidence: [Double], decodeSteps: Int) {
        self.generation = generation
        self.yes = yes
        self.confidence = confidence
        self.decodeSteps = decodeSteps
    }
}
