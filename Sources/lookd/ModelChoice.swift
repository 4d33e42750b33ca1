import Foundation
import LookCore
import Media
import ModelStore
import Settings
import VLM

/// Which model a command runs: `--model PATH --mmproj PATH` for local GGUF files, or a catalog id
/// (`--model minicpm-v-4.7-1b`, the default), pulled into the cache the first time.
enum ModelChoice {
    static let defaultID = ModelCatalog.defaultID

    /// The language-model and mmproj paths, or a usage error that says what to give.
    static func paths(_ settings: ModelSettings) throws(CommandFailure) -> (model: String, mmproj: String) {
        switch (settings.model, settings.mmproj) {
        case (let m?, let p?):
            return (m, p)
        case (let m?, nil) where m.hasSuffix(".gguf"):
            throw usage("--model \(m) is a file: give its vision projector with --mmproj FILE.gguf too")
        case (nil, _?):
            throw usage("--mmproj needs --model FILE.gguf beside it")
        case (let id, nil):
            let manifest = try ModelsCommand.fetch(id ?? defaultID)
            return ModelCache().paths(manifest)
        }
    }

    /// Loads the engine: `--engine`'s server, `script:FILE`, or the GGUF pair (the tower's int8 copy
    /// made first, unless `--vision-weights f16`); a failure is a `FAILED` sentence with the reason.
    static func load(_ settings: ModelSettings) throws(CommandFailure) -> any VisionLanguageModel {
        if let remote = try remote(settings) { return remote }
        if let spec = settings.model, spec.hasPrefix("script:") {
            do { return try ScriptedModel(path: String(spec.dropFirst("script:".count))) } catch {
                throw CommandFailure(code: .modelFailed, message: "FAILED: \(error)")
            }
        }
        let (model, mmproj) = try paths(settings)
        let (tower, problem) = VisionCopies().tower(for: mmproj, choice: settings.options.visionWeights, progress: PullProgress().report)
        if let problem { Terminal.err("lookd: the vision tower's Q8_0 copy could not be made (\(problem)); it runs the mmproj as published") }
        do {
            return try LlamaEngine(modelPath: model, mmprojPath: mmproj, towerPath: tower, options: settings.options)
        } catch {
            throw CommandFailure(code: .modelFailed, message: "FAILED: \(error)")
        }
    }

    /// `--engine URL` (or `LOOKD_ENGINE`): the OpenAI-compatible server to ask instead of the
    /// in-process model, with `--model NAME` its name for the model and `LOOKD_API_KEY` its key; nil
    /// when none is set.
    static func remote(_ settings: ModelSettings, environment: [String: String] = ProcessInfo.processInfo.environment) throws(CommandFailure)
        -> RemoteEngine?
    {
        guard let url = settings.engine else { return nil }
        var remote: RemoteEngine.Settings
        switch RemoteEngine.Settings.parse(url: url, model: settings.model ?? "", apiKey: environment["LOOKD_API_KEY"]) {
        case .success(let parsed): remote = parsed
        case .failure(let problem): throw usage(problem.text)
        }
        guard settings.mmproj == nil else { throw usage("--mmproj is for local files; with --engine the server has the model") }
        guard settings.model != nil else { throw usage("--engine needs --model NAME: the server's name for the model") }
        remote.firstTokenLimit = Double(settings.firstTokenTimeout)
        remote.attempts = settings.engineTries
        let quality = settings.jpegQuality
        return RemoteEngine(settings: remote) { image in ([UInt8](try JPEGWriter.encode(image, quality: quality)), "image/jpeg") }
    }
}
