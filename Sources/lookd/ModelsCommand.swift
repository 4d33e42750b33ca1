import Foundation
import VLM

/// `lookd models` (the catalog and what is in the cache) and `lookd pull ID`.
enum ModelsCommand {
    static let help = """
        Usage: lookd models
               lookd pull ID

        models lists lookd's catalog: each id, its Hugging Face repo, whether it is in the model cache
        and where. pull downloads a model into the cache with a progress bar: the language model (Q8_0,
        else Q4_K_M) and its mmproj, resumed after an interruption, checked for size and sha256, moved
        into place only when whole. ask and watch pull a catalog model that is not there yet.
        The cache: $LOOKD_MODELS, else $XDG_CACHE_HOME/lookd/models, else ~/.cache/lookd/models.
        HF_ENDPOINT (another Hub) and HF_TOKEN (gated repos) are honoured.
        """

    static func list() {
        let cache = ModelCache()
        print("Model cache: \(cache.root)\n")
        let width = ModelCatalog.models.map(\.id.count).max() ?? 10
        for m in ModelCatalog.models {
            let id = m.id.padding(toLength: width, withPad: " ", startingAt: 0)
            let mark = m.id == ModelCatalog.defaultID ? " (default)" : ""
            if let present = cache.present(m.id) {
                let size = PullProgress.bytes(Int64(present.model.size + present.mmproj.size))
                print("  \(id)  present, \(size)  \(cache.folder(m.id))\(mark)")
            } else {
                print("  \(id)  not pulled  \(m.repo)\(mark)")
            }
        }
    }

    static func pull(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, valued: [], switches: [])
        guard args.positional.count == 1 else { throw usage("pull takes one model id (see lookd models)") }
        let manifest = try fetch(args.positional[0])
        let paths = ModelCache().paths(manifest)
        print("\(manifest.id): \(paths.model)\n\(String(repeating: " ", count: manifest.id.count))  \(paths.mmproj)")
    }

    /// Pulls `id` (a no-op when present), with progress on standard error.
    static func fetch(_ id: String) throws(CommandFailure) -> ModelCache.Manifest {
        let progress = PullProgress()
        let puller = ModelPuller { progress.report($0) }
        do {
            return try puller.pull(id)
        } catch {
            if case .unknownModel = error { throw CommandFailure(code: .usage, message: error.description) }
            throw CommandFailure(code: .modelFailed, message: "FAILED: \(error)")
        }
    }
}
