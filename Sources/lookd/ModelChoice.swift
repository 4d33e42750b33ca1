import Foundation
import LookCore
import Media
import ModelStore
import VLM

/// Which model a command runs: `--model PATH --mmproj PATH` for local GGUF files, or a catalog id
/// (`--model minicpm-v-4.7-1b`, the default), pulled into the cache the first time.
enum ModelChoice {
    static let defaultID = ModelCatalog.defaultID

    /// The language-model and mmproj paths, or a usage error that says what to give.
    static func paths(_ args: Arguments) throws(CommandFailure) -> (model: String, mmproj: String) {
        let model = args.value("model")
        let mmproj = args.value("mmproj")
        switch (model, mmproj) {
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

    /// `--context`, `--threads` and `--vision-weights`, checked before any model is pulled or loaded
    /// (bad usage, exit 2).
    static func options(_ args: Arguments) throws(CommandFailure) -> LlamaEngine.Options {
        var options = LlamaEngine.Options()
        do { options.visionWeights = try VisionWeights(option: args.value("vision-weights")) } catch { throw usage(error.text) }
        options.contextSize = try args.integer("context", default: options.contextSize, in: 512...262_144)
        options.threads = try args.integer("threads", default: options.threads, in: 1...256)
        return options
    }

    /// Loads the engine (the tower's int8 copy made first, unless `--vision-weights f16`), or a
    /// `FAILED` sentence with the reason.
    static func load(_ args: Arguments) throws(CommandFailure) -> LlamaEngine {
        let options = try options(args)
        let (model, mmproj) = try paths(args)
        let (tower, problem) = VisionCopies().tower(for: mmproj, choice: options.visionWeights, progress: PullProgress().report)
        if let problem { Terminal.err("lookd: the vision tower's Q8_0 copy could not be made (\(problem)); it runs the mmproj as published") }
        do {
            return try LlamaEngine(modelPath: model, mmprojPath: mmproj, towerPath: tower, options: options)
        } catch {
            throw CommandFailure(code: .modelFailed, message: "FAILED: \(error)")
        }
    }

    /// `--engine URL` (or `LOOKD_ENGINE`): the OpenAI-compatible server to ask instead of the
    /// in-process model, with `--model NAME` its name for the model and `LOOKD_API_KEY` its key; nil
    /// when none is set.
    static func remote(_ args: Arguments, environment: [String: String] = ProcessInfo.processInfo.environment) throws(CommandFailure) -> RemoteEngine?
    {
        guard let url = args.value("engine") ?? environment["LOOKD_ENGINE"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            if args.value("jpeg-quality") != nil {
                throw usage("--jpeg-quality goes with --engine (the in-process model takes the picture as it is)")
            }
            return nil
        }
        var settings: RemoteEngine.Settings
        switch RemoteEngine.Settings.parse(url: url, model: args.value("model") ?? "", apiKey: environment["LOOKD_API_KEY"]) {
        case .success(let parsed): settings = parsed
        case .failure(let problem): throw usage(problem.text)
        }
        guard args.value("mmproj") == nil else { throw usage("--mmproj is for local files; with --engine the server has the model") }
        guard args.value("model") != nil else { throw usage("--engine needs --model NAME: the server's name for the model") }
        let quality = try args.integer("jpeg-quality", default: 3, in: 2...31)
        settings.firstTokenLimit = try Double(args.integer("first-token-timeout", default: 60, in: 1...3600))
        settings.attempts = try args.integer("engine-tries", default: 3, in: 1...10)
        return RemoteEngine(settings: settings) { image in ([UInt8](try JPEGWriter.encode(image, quality: quality)), "image/jpeg") }
    }
}
