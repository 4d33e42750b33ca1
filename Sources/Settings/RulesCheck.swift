import LookCore
import ModelStore
import Records
import Rules

/// What `lookd check` says of a rules file: its rules as understood, the question each frame gets,
/// the tokens it needs against the context (estimated without a model), and every setting in force.
public struct RulesCheck {
    public let spec: String
    public let set: RuleSet
    public let settings: [SettingInForce]
    public let context: Int
    public let prompt: String
    public let input: Int
    public let answer: Int
    /// The model's own limit, when the rules pass it (shapes-tiny was measured with at most 8).
    public let modelNote: String?
    /// The cameras of a watch of several, each with its settings in force (empty: one source).
    public var cameras: [CameraSetup] = []
    /// The one source's, when the settings name one.
    let source: String?

    public init(spec: String, set: RuleSet, setup: WatchSetup, settings: [SettingInForce]) {
        (self.spec, self.set, self.settings, context) = (spec, set, settings, setup.model.options.contextSize)
        source = setup.watch.source.isEmpty ? nil : setup.watch.source
        modelNote = setup.model.catalogEntry?.rulesNote(set.rules.count)
        prompt = WatchPrompt.text(for: set.rules)
        input = AnswerBudget.estimatedTokens(prompt) + AnswerBudget.estimatedImageTokens
        answer = AnswerBudget.answerTokens(rules: set.rules.count)
    }

    /// Why the rules do not fit the context; nil when they do.
    public var budgetProblem: String? {
        AnswerBudget.problem(rules: set.rules.count, inputTokens: input, answerTokens: answer, context: context, estimated: true)
    }

    public var json: JSON {
        .object(
            [
                ("source", .string(spec)), ("rules", RulesJSON.list(set.rules)), ("disabled", .strings(set.disabled.map(\.condition))),
                ("gate_masks", .strings(set.gateMasks.map(\.words))), ("prompt", .string(prompt)),
                ("warnings", .strings(set.warnings + (modelNote.map { [$0] } ?? []))),
                ("input_tokens_estimated", .int(input)), ("answer_tokens", .int(answer)), ("context", .int(context)),
                ("settings", SettingsShown.json(settings)),
            ] + (cameras.isEmpty ? [] : [("cameras", camerasJSON)]))
    }

    public var text: String {
        var lines = ["\(Quantity.count(set.rules.count, "rule")) in \(Secrets.maskedPasswords(in: spec)):"] + set.lines
        if cameras.isEmpty {
            lines.append("\nEach frame asks:\n" + prompt.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        } else {
            // Each camera asks its own rules: its question, not one no camera asks.
            for camera in cameras {
                let asked = WatchPrompt.text(for: set.forCamera(camera.name).rules)
                lines.append(
                    "\nEach frame of the camera \(camera.name) asks:\n" + asked.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
                )
            }
        }
        lines += (set.warnings + (modelNote.map { [$0] } ?? [])).map { "warning: \($0)" }
        lines += cameraLines
        lines.append("\nEach frame needs about \(input) tokens of question and picture and \(answer) of answer; the context is \(context).")
        lines.append("\nSettings in force (where each came from; live: a reload changes it):")
        return (lines + SettingsShown.lines(settings)).joined(separator: "\n")
    }
}
