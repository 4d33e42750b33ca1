import Foundation
import LookCore
import ModelStore
import VLM

/// Which model a command runs and how (`ask`, `watch`, `check`): each setting declared once.
struct ModelSettings {
    var model: String?
    var mmproj: String?
    /// `--engine URL` or LOOKD_ENGINE: an OpenAI-compatible server asked instead.
    var engine: String?
    var options = LlamaEngine.Options()
    var jpegQuality = 3
    var firstTokenTimeout = 60
    var engineTries = 3

    static let group = "Model"

    static var declared: SettingList<ModelSettings> {
        SettingList([
            .text(
                "model", \.model, "ID|FILE", group: group,
                help: "a catalog model (lookd models), pulled the first time; a local FILE.gguf with --mmproj; script:FILE answers "
                    + "from a text file (README: the scripted engine); with --engine, the server's name for the model",
                defaultWords: ModelCatalog.defaultID),
            .text("mmproj", \.mmproj, "FILE", group: group, help: "the vision projector (GGUF) of a local --model FILE.gguf"),
            .text(
                "engine", \.engine, "URL", group: group,
                help: "ask an OpenAI-compatible server instead (llama-server, vLLM, Ollama: http://host:8080/v1; also LOOKD_ENGINE, "
                    + "LOOKD_API_KEY its key); the picture goes as JPEG; the server's outages are waited out (README: More cameras, bigger models)"
            ),
            .integer("context", \.options.contextSize, in: 512...262_144, group: group, help: "the model's context length in tokens"),
            .integer(
                "threads", \.options.threads, in: 1...256, group: group, help: "CPU threads for the model", defaultWords: "one a physical core"),
            .choice(
                "vision-weights", \.options.visionWeights, group: group,
                help: "q8_0: the vision tower runs lookd's int8 copy of the mmproj, made once into the model cache; f16: the mmproj as published"),
            .integer(
                "jpeg-quality", \.jpegQuality, in: 2...31, group: group, help: "the JPEG quality a picture goes to --engine with (2 is best)",
                needs: SettingNeed("engine")),
            .integer(
                "first-token-timeout", \.firstTokenTimeout, in: 1...3600, unit: "S", group: group,
                help: "a question to --engine with no first token in S seconds is tried again", needs: SettingNeed("engine")),
            .integer(
                "engine-tries", \.engineTries, in: 1...10, group: group, help: "how many times --engine is asked a question in all",
                needs: SettingNeed("engine")),
        ])
    }

    /// LOOKD_ENGINE as given (a flag overrides it).
    static func environment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String: GivenSetting] {
        guard let url = environment["LOOKD_ENGINE"], !url.isEmpty else { return [:] }
        return ["engine": GivenSetting(url, from: .environment("LOOKD_ENGINE"))]
    }

    /// The model settings a command line gives (with LOOKD_ENGINE), checked (bad usage, exit 2).
    init(_ args: Arguments) throws(CommandFailure) {
        let given = Self.environment().merging(args.given(Self.declared.infos)) { $1 }
        if let problem = SettingCatalog(Self.declared.infos, defaults: [:]).unmetNeed(given) { throw usage(problem) }
        do { self = try Self.declared.resolve(given, over: ModelSettings()) } catch { throw usage(error.text) }
    }

    init() {}
}
