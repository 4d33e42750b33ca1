import Config
import Grounding
import LookCore
import Records
import Rules
import VLM

/// The question stage: the frame's numbered yes/no question, one a region (the whole frame first,
/// then the regions as the rules name them; rules that share one share its prompt), constrained
/// when the engine can and the cell is not asked inside the answer, else free text, read.
struct AskStage {
    let parts: LoopParts
    let tower: CameraTower // the camera's kept tower results, for its whole frames

    init(parts: LoopParts) { (self.parts, tower) = (parts, CameraTower(model: parts.model)) }

    /// What a frame's questions gave: the answers, what each rule's line said after its Yes
    /// (`--cells batch`), and the frame as shown, for the stages after.
    struct Asked {
        var outcome: FrameOutcome.Asked
        var afterYes: [String?]
        var shown: ShownFrame
    }

    func ask(_ frame: Frame, index: Int, rules: [Rule], active: [Int], config: WatchConfig) throws(WatchError) -> Asked {
        let clock = parts.clock
        let t0 = clock.now()
        let shown = ShownFrame(config.grid ? GridOverlay.draw(on: frame.image) : frame.image, model: parts.model)
        let t1 = clock.now()
        var groups: [(region: Region?, rules: [Int])] = [(nil, [])]
        for i in active {
            let region = rules[i].settings.region
            if let g = groups.firstIndex(where: { $0.region == region }) { groups[g].rules.append(i) } else { groups.append((region, [i])) }
        }
        groups.removeAll { $0.rules.isEmpty }
        var answers = [Answer](repeating: .unread, count: rules.count)
        var confidences: [Double?]?
        var generation = Generation(text: "", stop: .endOfText, timings: .none)
        var decodeSteps: Int?
        var afterYes = [String?](repeating: nil, count: rules.count)
        var towerWork: TowerWork?
        do {
            for group in groups {
                let picture = group.region.map { shown.image.cropped(x: $0.x, y: $0.y, w: $0.w, h: $0.h) } ?? shown.image
                let kept = group.region == nil ? tower.cache(config.reuseOn ? config.reuse : nil, opening: frame.opening) : nil
                let encoded = try parts.model.encode(picture, cache: kept)
                if group.region == nil {
                    shown.keep(encoded)
                    towerWork = encoded.reuse
                }
                let reply = try question(encoded, rules: group.rules.map { rules[$0] }, config: config)
                for (k, i) in group.rules.enumerated() {
                    answers[i] = reply.answers[k]
                    if let c = reply.confidence {
                        if confidences == nil { confidences = Array(repeating: nil, count: rules.count) }
                        confidences?[i] = c[k]
                    }
                }
                if let steps = reply.steps { decodeSteps = (decodeSteps ?? 0) + steps }
                if config.cells == .batch {
                    let after = AnswerParser.afterYes(reply.generation.text, ruleCount: group.rules.count)
                    for (k, i) in group.rules.enumerated() { afterYes[i] = after[k] }
                }
                generation.append(reply.generation, encoded: encoded.encodeSeconds)
            }
        } catch {
            throw .model(frame: index, reason: "\(error)")
        }
        let outcome = FrameOutcome.Asked(
            prompt: t1 - t0, model: clock.now() - t1, generation: generation, answers: answers, confidence: confidences,
            decodeSteps: decodeSteps, inactive: rules.indices.filter { !active.contains($0) }, tower: towerWork)
        return Asked(outcome: outcome, afterYes: afterYes, shown: shown)
    }

    /// One numbered question about one picture, for `rules`.
    private func question(_ image: EncodedImage, rules: [Rule], config: WatchConfig) throws -> (
        generation: Generation, answers: [Answer], confidence: [Double?]?, steps: Int?
    ) {
        let prompt = config.prompt(for: rules)
        let stop = parts.stop
        if config.constrain, config.cells != .batch,
            let c = try parts.model.yesNo(image: image, prompt: prompt, count: rules.count, cancellation: stop.cancellation)
        {
            let answers = rules.indices.map { $0 < c.yes.count ? (c.yes[$0] ? Answer.yes : .no) : .unread }
            // A line the answer did not reach (stopped, context full) has no confidence.
            return (c.generation, answers, rules.indices.map { $0 < c.confidence.count ? c.confidence[$0] : nil }, c.decodeSteps)
        }
        let g = try parts.model.generate(
            image: image, prompt: prompt, maxTokens: config.answerTokens(rules: rules.count), cancellation: stop.cancellation, onText: { _ in })
        return (g, AnswerParser.parse(g.text, ruleCount: rules.count), nil, nil)
    }
}
