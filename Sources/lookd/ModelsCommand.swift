import Foundation
import LookCore
import ModelStore
import Settings
import VLM

/// `lookd models` (the catalog and what is in the cache) and `lookd pull ID`.
enum ModelsCommand {
    static let help = """
        Usage: lookd models
               lookd models inspect MODEL.gguf [MMPROJ.gguf]
               lookd models inspect ID
               lookd pull ID

        models lists lookd's catalog: each id, its Hugging Face repo, whether it is in the model cache
        and where; then which weights the vision tower runs on this CPU (int8 or F16: one layer timed
        both ways the first time, remembered in the cache; \(SettingName.visionWeights) overrides it). pull downloads a model into the cache with a progress bar: the language model (Q8_0,
        else Q4_K_M) and its mmproj, resumed after an interruption, checked for size and sha256, moved
        into place only when whole. ask and watch pull a catalog model that is not there yet.
        The cache: $LOOKD_MODELS, else $XDG_CACHE_HOME/lookd/models, else ~/.cache/lookd/models.
        HF_ENDPOINT (another Hub) and HF_TOKEN (gated repos) are honoured.

        models inspect reads the two files' headers (nothing is loaded) and prints what the pair is
        (architecture, projector, sizes, quantization, context), the keys that decide how lookd runs
        it, the chat template's thinking switch, and the verdict: "runs natively", "runs as MiniCPM-V
        4.7 (canvas positions; …)", or "cannot run: why". Given one language model, it takes the one
        .gguf with mmproj in its name beside it; given a catalog id, the pulled pair in the cache. It
        exits 0 when the pair runs and 6 when it cannot (or a file is missing or not a GGUF).
        """

    static func list() {
        let cache = ModelCache()
        print("Model cache: \(cache.root)\n")
        for line in cache.catalogLines() + ["", cache.towerLine] { print(line) }
    }

    static func inspect(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, valued: [], switches: [])
        let (model, mmproj): (String, String)
        switch ModelCache().inspected(args.positional) {
        case .success(let files): (model, mmproj) = files
        case .failure(let problem): throw problem.notPulled ? CommandFailure(code: .modelFailed, message: problem.text) : usage(problem.text)
        }
        let pair: ModelPair
        do {
            pair = try ModelPair.read(model: model, mmproj: mmproj)
        } catch {
            throw CommandFailure(code: .modelFailed, message: "FAILED: \(error)")
        }
        print(pair.report())
        if case .cannotRun = pair.verdict { throw CommandFailure(code: .modelFailed, message: "") }
    }

    static func pull(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, valued: [], switches: [])
        guard args.positional.count == 1 else { throw usage("pull takes one model id (see lookd models)") }
        let manifest: ModelCache.Manifest
        do { manifest = try ModelSettings.pull(args.positional[0], clock: MonotonicClock()) } catch { throw CommandFailure(error) }
        let paths = ModelCache().paths(manifest)
        print("\(manifest.id): \(paths.model)\n\(String(repeating: " ", count: manifest.id.count))  \(paths.mmproj)")
    }
}
