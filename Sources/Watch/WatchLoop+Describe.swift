import Foundation
import LookCore
import Records
import Rules
import VLM

extension WatchLoop {
    /// After a frame's fires went out: one sentence about each fire whose rule asks for one (or all,
    /// with `--describe`), on the frame as encoded for its question. At most `describeLimit` a frame;
    /// the rest are skipped and said so. Each goes out as a `described` event, and the reactions
    /// waiting for it (`say: "{description}"`) get it.
    func describe(_ fires: inout [FireOutcome], image: () -> EncodedImage?) {
        var asked = 0
        for k in fires.indices {
            let fire = fires[k]
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
                describeSkipped += 1
                outcome.error = "skipped: \(config.describeLimit) fires of this frame were described already (\(describeSkipped) skipped in this run)"
            } else if let image = image() {
                asked += 1
                let started = clock.now()
                do {
                    let g = try model.generate(
                        image: image, prompt: question, maxTokens: config.describeTokens, cancellation: stop.cancellation, onText: { _ in })
                    let text = DescribeOutcome.sentence(g.text)
                    (outcome.text, outcome.firstToken, outcome.tokens) = (text.isEmpty ? nil : text, g.timings.firstToken, g.timings.outputTokens)
                    if text.isEmpty { outcome.error = "the model gave no words" }
                } catch {
                    outcome.error = "the model failed: \(error)"
                }
                outcome.seconds = clock.now() - started
            } else {
                outcome.error = "the frame could not be encoded again"
            }
            if let text = outcome.text { lastDescriptions[fire.condition] = text }
            if let error = outcome.error { Log.shared.warning("describe: \(fire.condition) (fire \(fire.number)): \(error)") }
            fires[k].describe = outcome
            if let context = fire.context { reactor.described(rules[fire.rule].reaction, fire: context, text: outcome.text, problem: outcome.error) }
            events.emit(.described(outcome, fire: fires[k]))
        }
    }
}
