internal import CLlama
import Foundation
import LookCore

extension LlamaEngine {
    /// Answers `count` numbered yes/no lines under constraint. lookd writes every token the format
    /// forces (`1.`, the line breaks, the numbers, and the start the Yes and No tokens share) and the
    /// model chooses only between Yes and No, greedily, from the logits of the first token where the
    /// two differ. The forced tokens after a choice go in one batch, so a line costs one decode step.
    /// nil when this vocabulary cannot tell Yes from No at a token.
    public func yesNo(image: EncodedImage, prompt: String, count: Int, cancellation: Cancellation?) throws -> YesNoAnswers? {
        lock.lock()
        defer { lock.unlock() }
        let yes = tokenize(" Yes"), no = tokenize(" No")
        let shared = zip(yes, no).prefix { $0 == $1 }.count
        guard count > 0, shared < yes.count, shared < no.count else { return nil }
        abortFlag.watch(cancellation)
        defer { abortFlag.watch(nil) }
        let start = tokenize("1.") + yes[..<shared]
        guard let question = try startQuestion(image: image, prompt: prompt, answerStart: start, clock: clock) else {
            return YesNoAnswers(generation: Generation(text: "", stop: .cancelled, timings: .none), yes: [], confidence: [], decodeSteps: 0)
        }
        var reader = question.reader
        var text = ""
        var choices: [Bool] = []
        var confidences: [Double] = []
        var firstToken: Double?
        var produced = start.count
        var steps = 0
        var stop = StopReason.endOfText
        for line in 1...count {
            guard let logits = llama_get_logits_ith(context, -1) else { throw VLMError.decodeFailed(code: -3) }
            let (ly, ln) = (Double(logits[Int(yes[shared])]), Double(logits[Int(no[shared])]))
            let pYes = 1 / (1 + exp(ln - ly))
            let saysYes = ly >= ln
            if firstToken == nil { firstToken = clock.now() - question.started }
            choices.append(saysYes)
            confidences.append(pYes)
            text += "\(line > 1 ? "\n" : "")\(line). \(saysYes ? "Yes" : "No")"
            guard line < count else { break }
            if cancellation?.isCancelled == true {
                stop = .cancelled
                break
            }
            // The rest of the chosen word, the line break, the next number and the shared start.
            let forced = Array((saysYes ? yes : no)[shared...]) + tokenize("\n\(line + 1).") + yes[..<shared]
            // The question's count includes the forced start, which `produced` counts too.
            guard question.inputTokens - start.count + produced + forced.count < options.contextSize else {
                stop = .contextFull
                break
            }
            do {
                try reader.more(forced)
            } catch {
                stop = try error.stopReason()
                break
            }
            produced += forced.count
            steps += 1
        }
        produced += (choices.last.map { $0 ? yes : no } ?? []).count - shared
        // The forced start is the answer's first tokens, not the question's.
        var timings = question.timings(first: firstToken, out: produced, clock: clock)
        timings.inputTokens -= start.count
        let generation = Generation(text: text, stop: stop, timings: timings)
        return YesNoAnswers(generation: generation, yes: choices, confidence: confidences, decodeSteps: steps)
    }
}
