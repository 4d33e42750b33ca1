/// The models lookd knows by name: a Hugging Face repo and revision holding a GGUF language model and
/// its mmproj. The exact file names are read from the repo's listing when pulling (Q8_0 preferred,
/// else Q4_K_M; the mmproj is the `mmproj*.gguf`). A model lookd ships itself (`shipped`) is in the
/// repository instead, and never downloaded (BundledModels).
public struct CatalogModel: Sendable, Equatable {
    public let id: String
    public let repo: String
    public let revision: String
    public let about: String
    public var shipped = false
    /// The most rules in one prompt it was measured with (shapes-tiny: 8); nil: not measured here.
    public var measuredRules: Int?
    /// The `lookd ask` question forms it was trained on, as whole-question patterns; empty: any.
    public var askForms: [String] = []

    /// What `lookd check` says when `rules` pass the measured limit; nil within it.
    public func rulesNote(_ rules: Int) -> String? {
        guard let limit = measuredRules, rules > limit else { return nil }
        return "\(id) was measured with 1 to \(limit) rules in a prompt; with \(rules), its yeses may land on the wrong rules"
    }

    /// What `lookd ask` says of a question it was not trained on; nil for one it was (or any model
    /// trained on any question).
    public func askNote(_ question: String) -> String? {
        guard !askForms.isEmpty, !askForms.contains(where: { question.wholeMatch(of: try! Regex("(?i)" + $0)) != nil }) else { return nil }
        return "\(id) was trained on a few question forms only (docs/engines.md: its card); this one is not among them, so its answer means little"
    }
}

public enum ModelCatalog {
    public static let defaultID = "minicpm-v-4.7-1b"

    public static let models: [CatalogModel] = [
        CatalogModel(
            id: "minicpm-v-4.7-1b", repo: "openbmb/MiniCPM-V-4.7-1B-gguf", revision: "main",
            about: "MiniCPM-V 4.7 1B: the default"),
        CatalogModel(
            id: "minicpm-v-4.6", repo: "openbmb/MiniCPM-V-4.6-gguf", revision: "main",
            about: "MiniCPM-V 4.6, same family; runs on the pinned llama.cpp"),
        CatalogModel(
            id: "smolvlm2-2.2b", repo: "ggml-org/SmolVLM2-2.2B-Instruct-GGUF", revision: "main",
            about: "SmolVLM2 2.2B: small and quick on a CPU"),
        CatalogModel(
            id: "qwen2.5-vl-3b", repo: "ggml-org/Qwen2.5-VL-3B-Instruct-GGUF", revision: "main",
            about: "Qwen2.5-VL 3B: stronger, slower"),
        CatalogModel(
            id: "shapes-tiny", repo: "lookd", revision: "models/shapes-tiny",
            about: "lookd's own 9 MB MiniCPM-V 4.7, trained on a world of coloured shapes: it sees that world, not yours",
            shipped: true, measuredRules: 8,
            askForms: [
                "What colou?r is the (ball|square|triangle|star)\\?", "How many things are there\\?", "What is in the picture\\?",
                "In one short sentence, say what is happening in this picture\\..*",
            ]),
        CatalogModel(
            id: "gemma-3-4b", repo: "ggml-org/gemma-3-4b-it-GGUF", revision: "main",
            about: "Gemma 3 4B: stronger, slower"),
    ]

    public static func model(_ id: String) -> CatalogModel? { models.first { $0.id == id } }
}
