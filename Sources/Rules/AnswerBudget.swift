import LookCore

/// How many tokens a frame's answer and question need, so that rules that could never be answered
/// are found before a run, not as `?` for ever or a failed frame.
public enum AnswerBudget {
    /// The least answer tokens a frame gets (the old default of `--tokens`).
    public static let minimum = 32

    /// Answer tokens `rules` numbered lines need: about 4 a line (`12`, `.`, ` Yes`, a line break),
    /// 6 with a cell after each yes (`--cells batch`), and 8 of room for a stray word.
    public static func answerTokens(rules: Int, cells: Bool = false) -> Int { rules * (cells ? 6 : 4) + 8 }

    /// `--tokens` when it is not given: grows with the rules.
    public static func defaultTokens(rules: Int, cells: Bool = false) -> Int { max(minimum, answerTokens(rules: rules, cells: cells)) }

    /// How many rules a `--tokens` budget answers in full.
    public static func rulesAnswered(byTokens tokens: Int, cells: Bool = false) -> Int { max(0, (tokens - 8) / (cells ? 6 : 4)) }

    /// Tokens a picture takes before it is seen, for `lookd check` (which loads no model): MiniCPM-V
    /// gives a 448-px frame 64 tokens per slice and a few slices; this errs on the high side.
    public static let estimatedImageTokens = 320

    /// A prompt's tokens when no tokenizer is at hand: English runs about 4 bytes a token; 3 errs high.
    public static func estimatedTokens(_ text: String) -> Int { (text.utf8.count + 2) / 3 + 16 }

    /// The context to suggest for a need: the next multiple of 1,024 with room to spare.
    public static func suggestedContext(for tokens: Int) -> Int { ((tokens + tokens / 8) / 1024 + 1) * 1024 }

    /// The sentence refusing a run whose question and answer do not fit, or nil when they do.
    public static func problem(rules: Int, inputTokens: Int, answerTokens: Int, context: Int, estimated: Bool = false) -> String? {
        let total = inputTokens + answerTokens
        guard total >= context else { return nil }
        let about = estimated ? "about " : ""
        return
            "\(rules) rule\(rules == 1 ? "" : "s") need \(about)\(total) tokens a frame (\(about)\(inputTokens) of question and picture, "
            + "\(answerTokens) of answer), more than the model's context of \(context); use \(SettingName.context) \(suggestedContext(for: total)), "
            + "or fewer rules"
    }
}
