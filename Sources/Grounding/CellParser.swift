import LookCore

/// Reads a cell from the model's answer to the cell questions.
public enum CellParser {
    /// The first digit 1–9 in the answer.
    public static func number(_ answer: String) -> Cell? {
        answer.first { ("1"..."9").contains($0) }.flatMap { Int(String($0)) }.flatMap(Cell.init)
    }

    /// `--cells batch`: the cell each rule's line names after its Yes (`2. Yes 7`, `2. Yes, cell 7`),
    /// from the text after each Yes; nil for no Yes, or no digit 1–9 after it.
    public static func batch(afterYes: [String?]) -> [Cell?] {
        afterYes.map { $0.flatMap(number) }
    }

    /// Two place words: left / center / right, then top / middle / bottom; a word left out counts as
    /// center or middle. nil when the answer has no place word at all.
    public static func words(_ answer: String) -> Cell? {
        let words = answer.lowercased().split { !$0.isLetter }.map(String.init)
        var column: Int?
        var row: Int?
        for w in words {
            switch w {
            case "left": column = column ?? 0
            case "center", "centre", "centered", "central": column = column ?? 1
            case "right": column = column ?? 2
            case "top", "upper": row = row ?? 0
            case "middle": row = row ?? 1
            case "bottom", "lower": row = row ?? 2
            default: break
            }
        }
        guard column != nil || row != nil else { return nil }
        return Cell((row ?? 1) * 3 + (column ?? 1) + 1)
    }
}
