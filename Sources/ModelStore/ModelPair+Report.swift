import Foundation
import LookCore
import VLM

extension ModelPair {
    /// What `lookd models inspect` prints: what each file is, the keys that decide how lookd runs
    /// the pair, the chat template's thinking switch, and the verdict. Made to be pasted into a bug
    /// report, so it names this llama.cpp build too.
    public func report(copies: VisionCopies = VisionCopies()) -> String {
        var lines = ["Language model  \(modelPath)"]
        lines += Self.describe(model, path: modelPath, kind: architecture)
        if let context = model.integer("\(architecture).context_length") { lines.append("  context         \(context) tokens (trained)") }
        if let vocabulary = model.arrayCounts["tokenizer.ggml.tokens"] { lines.append("  vocabulary      \(vocabulary) tokens") }
        if let sections = model.integers("\(architecture).rope.dimension_sections") {
            lines.append("  rope sections   \(sections.map(String.init).joined(separator: ", "))")
        }
        let keys = positionKeys
        lines.append("  time slot keys  " + (keys.isEmpty ? "none" : keys.map { "\($0.key) = \($0.value)" }.joined(separator: "; ")))
        lines.append("  chat template   \(thinking)")
        lines.append("Vision projector  \(mmprojPath)")
        lines += Self.describe(mmproj, path: mmprojPath, kind: "projector \(projector ?? "unknown")")
        if let size = mmproj.integer("clip.vision.image_size") { lines.append("  image size      \(size) px") }
        let choice = TowerChoice.current(cache: copies.cache)
        lines.append(
            "  vision tower    "
                + Self.tower(copies.state(of: mmprojPath, choice: choice.choice), published: mmproj.mostWeights, choice: choice.choice))
        lines.append("  tower chosen    \(choice.weights): \(choice.reason)")
        lines.append("llama.cpp       \(LlamaEngine.build)")
        lines.append("Verdict: \(verdictSentence)")
        return lines.joined(separator: "\n")
    }

    /// Which weights the tower runs by default (the faster on this CPU), and where they are.
    static func tower(_ state: VisionCopies.State, published: String, choice: VisionWeights) -> String {
        switch state {
        case .asPublished where choice == .f16:
            return "\(published), as published (the faster on this CPU; \(SettingName.visionWeights) q8_0 runs lookd's int8 copy)"
        case .asPublished: return "\(published), as published (nothing in it to make int8)"
        case .copy(let path): return "q8_0, lookd's copy \(path) (\(published) as published: \(SettingName.visionWeights) f16)"
        case .toMake(let path):
            return "q8_0, lookd's copy, made on the first load at \(path) (\(published) as published: \(SettingName.visionWeights) f16)"
        }
    }

    /// The verdict as one line: "runs natively", "runs as MiniCPM-V 4.7 (…)", or "cannot run: …".
    public var verdictSentence: String {
        switch verdict {
        case .native:
            return "runs natively"
        case .canvas(.fromFile(let key, let value)):
            return "runs as MiniCPM-V 4.7 (canvas positions; time slot from the file: \(key) = \(value))"
        case .canvas(.suppliedByLookd(let reason)):
            return "runs as MiniCPM-V 4.7 (canvas positions; time slot supplied by lookd: \(reason))"
        case .cannotRun(let reason):
            return "cannot run: \(reason)"
        }
    }

    /// The chat template's thinking switch, and what lookd does about it.
    public var thinking: String {
        guard let template = model.string("tokenizer.chat_template") else { return "none in the file (lookd uses ChatML)" }
        if template.contains("enable_thinking") {
            return "thinks unless enable_thinking is false; lookd answers after an empty <think></think> block"
        }
        if template.contains("<think>") { return "has <think> blocks; lookd answers after an empty one" }
        return "no thinking switch"
    }

    /// Kind, parameters, the dominant tensor type and the file's size.
    static func describe(_ file: GGUFMetadata, path: String, kind: String) -> [String] {
        let parameters = file.tensors.reduce(0.0) { $0 + Double($1.elements) }
        var byType: [UInt32: UInt64] = [:]
        for t in file.tensors { byType[t.type, default: 0] += t.elements }
        let main = byType.max { $0.value < $1.value }.map { GGUFMetadata.typeName($0.key) } ?? "unknown"
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let name = file.string("general.name").map { " · \($0)" } ?? ""
        return [
            "  kind            \(kind)\(name)",
            String(
                format: "  size            %@ parameters in %d tensors · mostly %@ · %.1f MB",
                Self.count(parameters), file.tensors.count, main, Double(bytes) / 1e6),
        ]
    }

    /// `1.05 B`, `5.47 M`, `812 K`: a parameter count in the unit that fits it (a 9 MB model is not "0.00 B").
    static func count(_ n: Double) -> String {
        for (unit, size) in [("B", 1e9), ("M", 1e6), ("K", 1e3)] where n >= size { return String(format: "%.2f %@", n / size, unit) }
        return String(format: "%.0f", n)
    }
}
