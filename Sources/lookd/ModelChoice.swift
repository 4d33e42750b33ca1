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

    /// Loads the engine, or a `FAILED` sentence with the reason.
    static func load(_ args: Arguments) throws(CommandFailure) -> LlamaEngine {
        let (model, mmproj) = try paths(args)
        var options = LlamaEngine.Options()
        options.contextSize = try args.integer("context", default: options.contextSize, in: 512...262_144)
        options.threads = try args.integer("threads", default: options.threads, in: 1...256)
        do {
            return try LlamaEngine(modelPath: model, mmprojPath: mmproj, options: options)
        } catch {
            throw CommandFailure(code: .modelFailed, message: "FAILED: \(error)")
        }
    }
}
