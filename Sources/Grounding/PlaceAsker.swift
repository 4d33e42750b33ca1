import Foundation
import LookCore
import ReactionDomain
import VLM

/// The frame's second questions (`--cells box|ask`): a new session each, on the frame's image as
/// encoded for the yes/no question, so the picture is not encoded again.
public struct PlaceAsker {
    let model: any VisionLanguageModel
    let form: PlaceForm
    let cellWords: Bool
    let cancellation: Cancellation?

    public init(model: any VisionLanguageModel, form: PlaceForm, cellWords: Bool, cancellation: Cancellation?) {
        self.model = model
        self.form = form
        self.cellWords = cellWords
        self.cancellation = cancellation
    }

    /// Whether a rule that fired gets a place: box for effect rules, ask for every rule, as the seed.
    public func wants(_ reaction: Reaction) -> Bool {
        switch form {
        case .box: return reaction.base.wantsPlace
        case .ask: return true
        case .batch, .none: return false
        }
    }

    /// The question for `condition` and its token cap.
    public static func question(_ condition: String, form: PlaceForm, cellWords: Bool) -> (text: String, tokens: Int) {
        switch form {
        case .box: return (PlaceQuestions.box(condition), PlaceQuestions.boxTokens)
        default:
            return (cellWords ? PlaceQuestions.cellWords(condition) : PlaceQuestions.cell(condition), PlaceQuestions.cellTokens)
        }
    }

    /// The place question as the record shows it, `<condition>` for the rule's words.
    public static func prompt(form: PlaceForm, cellWords: Bool) -> String {
        question("<condition>", form: form, cellWords: cellWords).text
    }

    /// Asks where rule `index`'s thing is on `image`.
    public func ask(rule index: Int, condition: String, image: EncodedImage) throws -> Place {
        let (prompt, tokens) = Self.question(condition, form: form, cellWords: cellWords)
        let generation = try model.generate(image: image, prompt: prompt, maxTokens: tokens, cancellation: cancellation, onText: { _ in })
        var place = Place(
            rule: index, text: generation.text, seconds: generation.timings.total,
            firstToken: generation.timings.firstToken, tokens: generation.timings.outputTokens)
        switch form {
        case .box: place.box = BoxParser.parse(generation.text, frame: (image.image.width, image.image.height))
        default: place.cell = cellWords ? CellParser.words(generation.text) : CellParser.number(generation.text)
        }
        return place
    }
}
