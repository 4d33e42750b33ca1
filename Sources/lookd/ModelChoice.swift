import Foundation
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

    /// `--context` and `--threads`, checked before any model is pulled or loaded (bad usage, exit 2).
    static func options(_ args: Arguments) throws(CommandFailure) -> LlamaEngine.Options {
        var options = LlamaEngine.Options()
        options.contextSize = try args.integer("context", default: options.contextSize, in: 512...262_144)
        options.threads = try args.integer("threads", default: options.threads, in: 1...256)
        return options
    }

    /// Loads the engine, or a `FAILED` sentence with the reason.
    static func load(_ args: Arguments) throws(CommandFailure) -> LlamaEngine {
        let options = try options(args)
        let (model, mmproj) = try paths(args)
        do {
            return try LlamaEngine(modelPath: model, mmprojPath: mmproj, options: options)
        } catch {
            throw CommandFailure(code: .modelFailed, message: "FAILED: \(error)")
        }
    }
}
