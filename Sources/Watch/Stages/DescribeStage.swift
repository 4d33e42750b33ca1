import Config
import LookCore
import Records
import Rules
import VLM

/// The describe stage: after a frame's fires went out, one sentence about each fire whose rule asks
/// for one (or all, with `--describe`), on the frame as encoded for its question. At most
/// `describeLimit` a frame; the rest are skipped and said so. Each goes out as a `described` event,
/// and the reactions waiting for it (`say: "{description}"`) get it. It keeps each rule's latest.
final class DescribeStage {
    let parts: LoopParts
    /// Each rule's latest description (by its words), and the descriptions skipped past the bound.
    private(set) var latest: [String: String] = [:]
    private var skipped = 0

    init(parts: LoopParts) { self.parts = parts }

    /// The frame's descriptions, by fire number.
    func describe(_ fires: [FireOutcome], rules: [Rule], shown: ShownFrame, config: WatchConfig) -> [Int: DescribeOutcome] {
        var (asked, described) = (0, [Int: DescribeOutcome]())
        let reactor = parts.reactor
        for fire in fires {
            guard let request = rules[fire.rule].settings.describe ?? (config.describeAll ? .standard : nil) else {
                // A reaction waiting for a description that is never asked (say: "{description}"
                // without describe:) goes on now, with the rule's words, and says why.
                if let context = fire.context {
                    reactor.described(
                        rules[fire.rule].reaction, fire: context, text: nil, problem: "no description was asked: the rule has no describe:")
                }
                continue
            }
            let question = request.question(for: fire.condition)
            var outcome = DescribeOutcome(fire: fire.number, rule: fire.rule, condition: fire.condition, question: question, text: nil)
            if asked >= config.describeLimit {
                skipped += 1
                outcome.error = "skipped: \(config.describeLimit) fires of this frame were described already (\(skipped) skipped in this run)"
            } else if !parts.turn.again() {
                outcome.error = "stopped before the model's turn came"
            } else if let image = shown.whole {
                asked += 1
                sentence(&outcome, image: image, question: question, tokens: config.describeTokens)
            } else {
                outcome.error = "the frame could not be encoded again"
            }
            if let text = outcome.text { latest[fire.condition] = text }
            if let error = outcome.error { Log.shared.warning("describe: \(fire.condition) (fire \(fire.number)): \(error)") }
            described[fire.number] = outcome
            if let context = fire.context { reactor.described(rules[fire.rule].reaction, fire: context, text: outcome.text, problem: outcome.error) }
            parts.events.emit(.described(outcome, fire: fire))
        }
        return described
    }

    /// Asks the model for the sentence; its text, numbers and seconds go into `outcome`.
    private func sentence(_ outcome: inout DescribeOutcome, image: EncodedImage, question: String, tokens: Int) {
        let started = parts.clock.now()
        do {
            let g = try parts.model.generate(
                image: image, prompt: question, maxTokens: tokens, cancellation: parts.stop.cancellation, onText: { _ in })
            let text = DescribeOutcome.sentence(g.text)
            (outcome.text, outcome.firstToken, outcome.tokens) = (text.isEmpty ? nil : text, g.timings.firstToken, g.timings.outputTokens)
            if text.isEmpty { outcome.error = "the model gave no words" }
        } catch {
            outcome.error = "the model failed: \(error)"
        }
        outcome.seconds = parts.clock.now() - started
    }
}
