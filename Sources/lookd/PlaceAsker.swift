import Foundation
import Grounding
import LookCore
import Rules
import VLM

/// Where a rule's thing is on the frame, as the model said.
struct Place {
    var rule: Int
    var box: Box?
    var cell: Cell?
    /// The answer as written (nil for `--cells batch`, whose answer is the frame's own).
    var text: String?
    var seconds = 0.0
    var firstToken: Double?
    var tokens = 0

    /// Where the edit plays: the box, else the cell's third of the picture, else nil (the whole frame).
    var editBox: Box? { box ?? cell?.box }

    /// The record's entry for one place question (the answer's first 200 characters).
    var asked: JSON {
        .object([("rule", .int(rule + 1)), ("text", .optional(text.map { String($0.prefix(200)) })),
                 ("box", Self.json(box)), ("cell", .optional(cell?.number)),
                 ("ms", .number(seconds * 1000, places: 1)), ("first_token_ms", .optional(firstToken.map { $0 * 1000 }, places: 1)),
                 ("tokens", .int(tokens))])
    }

    static func json(_ box: Box?) -> JSON { box.map { .ints([$0.left, $0.top, $0.right, $0.bottom]) } ?? .null }
}

/// The frame's second questions (`--cells box|ask`): a new session each, on the frame's image as
/// encoded for the yes/no question, so the picture is not encoded again.
struct PlaceAsker {
    let model: any VisionLanguageModel
    let form: PlaceForm
    let cellWords: Bool
    let cancellation: Cancellation?

    /// Whether a rule that fired gets a place: box for effect rules, ask for every rule, as the seed.
    func wants(_ rule: Rule) -> Bool {
        switch form {
        case .box: if case .effect = rule.reaction { return true } else { return false }
        case .ask: return true
        case .batch, .none: return false
        }
    }

    /// The question for `condition` and its token cap.
    static func question(_ condition: String, form: PlaceForm, cellWords: Bool) -> (text: String, tokens: Int) {
        switch form {
        case .box: return (PlaceQuestions.box(condition), PlaceQuestions.boxTokens)
        default:
            return (cellWords ? PlaceQuestions.cellWords(condition) : PlaceQuestions.cell(condition), PlaceQuestions.cellTokens)
        }
    }

    /// The place question as the record shows it, `<condition>` for the rule's words.
    static func prompt(_ settings: WatchSettings) -> String {
        question("<condition>", form: settings.cells, cellWords: settings.cellWords).text
    }

    /// Asks where rule `index`'s thing is on `image`.
    func ask(rule index: Int, condition: String, image: EncodedImage) throws -> Place {
        let (prompt, tokens) = Self.question(condition, form: form, cellWords: cellWords)
        let generation = try model.generate(image: image, prompt: prompt, maxTokens: tokens, cancellation: cancellation, onText: { _ in })
        var place = Place(rule: index, text: generation.text, seconds: generation.timings.total,
                          firstToken: generation.timings.firstToken, tokens: generation.timings.outputTokens)
        switch form {
        case .box: place.box = BoxParser.parse(generation.text, frame: (image.image.width, image.image.height))
        default: place.cell = cellWords ? CellParser.words(generation.text) : CellParser.number(generation.text)
        }
        return place
    }
}
