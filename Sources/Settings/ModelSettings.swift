import Foundation
import LookCore
import ModelStore
import VLM

/// Which model a command runs and how (`ask`, `watch`, `check`): each setting declared once.
public struct ModelSettings {
    public var model: String?
    public var mmproj: String?
    /// `--engine URL` or LOOKD_ENGINE: an OpenAI-compatible server asked instead.
    public var engine: String?
    public var options = LlamaEngine.Options()
    public var jpegQuality = 3
    public var firstTokenTimeout = 60
    public var engineTries = 3
    /// How many questions may be in flight at once to `--engine` (cameras of one watch); nil: the server's slots.
    public var engineParallel: Int?

    public static let group = "Model"

    /// The settings `lookd ask` takes: all but the cameras' (one question shares no server's slots).
    public static var askInfos: [SettingInfo] { declared.infos.filter { $0.name != SettingName.engineParallel.key } }

    public static var declared: SettingList<ModelSettings> {
        let settings: [Setting<ModelSettings>] = [
            .text(
                .model, \.model, "ID|FILE.gguf", group: group,
                help: "a catalog model (lookd models), pulled the first time; a local FILE.gguf with \(SettingName.mmproj); script:FILE answers "
                    + "from a text file (docs/watch.md: The scripted engine); with \(SettingName.engine), the server's name for the model",
                defaultWords: ModelCatalog.defaultID),
            .text(.mmproj, \.mmproj, "FILE", group: group, help: "the vision projector (GGUF) of a local \(SettingName.model) FILE.gguf"),
            .text(
                .engine, \.engine, "URL", group: group,
                help: "ask an OpenAI-compatible server instead (llama-server, vLLM, Ollama: http://host:8080/v1; also LOOKD_ENGINE, "
                    + "LOOKD_API_KEY its key); the picture goes as JPEG; the server's outages are waited out (docs/service.md: More cameras, bigger models)"
            ),
            .integer(.context, \.options.contextSize, in: 512...262_144, group: group, help: "the model's context length in tokens"),
            .integer(
                .threads, \.options.threads, in: 1...256, group: group, help: "CPU threads for the model", defaultWords: "one a physical core"),
            Setting(
                .visionWeights, "q8_0|f16", group: group,
                help: "q8_0: the vision tower runs lookd's int8 copy of the mmproj, made once into the model cache; f16: the mmproj as "
                    + "published; the default is the faster on this CPU, timed once (a second) and remembered in the model cache",
                show: { $0.visionWeightsShown },
                apply: { (settings, text) throws(SettingProblem) in
                    do throws(VisionWeights.Unknown) { settings.options.visionWeights = try VisionWeights(option: text) } catch {
                        throw SettingProblem(String(error.text.dropFirst(17)))
                    }
                }),
            .integer(
                .jpegQuality, \.jpegQuality, in: 2...31, group: group,
                help: "the JPEG quality a picture goes to \(SettingName.engine) with (2 is best)",
                needs: SettingNeed(.engine)),
            .integer(
                .firstTokenTimeout, \.firstTokenTimeout, in: 1...3600, unit: "S", group: group,
                help: "a question to \(SettingName.engine) with no first token in S seconds is tried again", needs: SettingNeed(.engine)),
            .integer(
                .engineTries, \.engineTries, in: 1...10, group: group, help: "how many times \(SettingName.engine) is asked a question in all",
                needs: SettingNeed(.engine)),
            .integer(
                .engineParallel, \.engineParallel, in: 1...64, group: group,
                help: "how many questions the cameras of a watch may have in flight at once to \(SettingName.engine)",
                needs: SettingNeed(.engine), defaultWords: "the server's slots (llama-server's /props), else 1"),
        ]
        return SettingList(settings)
    }

    /// LOOKD_ENGINE as given (a flag overrides it).
    public static func environment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String: GivenSetting] {
        guard let url = environment["LOOKD_ENGINE"], !url.isEmpty else { return [:] }
        return [SettingName.engine.key: GivenSetting(url, from: .environment("LOOKD_ENGINE"))]
    }

    /// The model settings that `flags` give (LOOKD_ENGINE under them), checked.
    public static func resolve(_ flags: [String: GivenSetting]) throws(SettingProblem) -> ModelSettings {
        let given = environment().merging(flags) { $1 }
        if let problem = SettingCatalog(declared.infos, defaults: [:]).unmetNeed(given) { throw SettingProblem(problem) }
        return try declared.resolve(given, over: ModelSettings())
    }

    public init() {}
}
