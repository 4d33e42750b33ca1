import Foundation
import LookCore
import Media
import ModelStore
import VLM

/// Why the model a command names cannot run: a usage error (what to give instead), or a failure to
/// pull or load it (`FAILED: …`).
public enum ModelLoadFailure: Error {
    case usage(String)
    case failed(String)
}

extension ModelSettings {
    /// The catalog's entry of the model in force (nil: a file or a server of the user's own).
    public var catalogEntry: CatalogModel? { engine == nil ? ModelCatalog.model(model ?? ModelCatalog.defaultID) : nil }

    /// The tower's weights: `--vision-weights`, else the faster on this CPU (measured once: TowerChoice).
    public var visionWeightsInForce: VisionWeights { options.visionWeights ?? TowerChoice.current(threads: options.threads).choice }

    /// What `--vision-weights` is in force, in words, for `lookd check` and the run record.
    var visionWeightsShown: String {
        if let chosen = options.visionWeights { return chosen.rawValue }
        if engine != nil || model?.hasPrefix("script:") == true { return "the faster on this CPU (no tower here: the model is not in-process)" }
        guard let measured = TowerChoice.known(threads: options.threads) else {
            return "the faster on this CPU (int8 or F16, timed once when a model is first loaded)"
        }
        return "\(measured.weights), the faster here: \(measured.reason)"
    }

    /// What `lookd ask` warns of a question the model was not trained on (shapes-tiny's few forms).
    public func askNote(_ question: String) -> String? { catalogEntry?.askNote(question) }

    /// The engine these settings name: `--engine`'s server, `script:FILE`, or the GGUF pair (a
    /// catalog id pulled into the cache the first time; the tower's int8 copy made first, unless
    /// `--vision-weights f16`).
    public func load(clock: any Clock) throws(ModelLoadFailure) -> any VisionLanguageModel {
        if let remote = try remote(clock: clock) { return remote }
        if let spec = model, spec.hasPrefix("script:") {
            do { return try ScriptedModel(path: String(spec.dropFirst("script:".count)), clock: clock) } catch { throw .failed("FAILED: \(error)") }
        }
        let (model, mmproj) = try paths(clock: clock)
        let (tower, problem) = VisionCopies().tower(
            for: mmproj, choice: visionWeightsInForce, clock: clock, progress: PullProgress(clock: clock).report)
        if let problem { Log.shared.warning("the vision tower's Q8_0 copy could not be made (\(problem)); it runs the mmproj as published") }
        do {
            return try LlamaEngine(modelPath: model, mmprojPath: mmproj, towerPath: tower, options: options, clock: clock)
        } catch {
            throw .failed("FAILED: \(error)")
        }
    }

    /// The language-model and mmproj paths: `--model PATH --mmproj PATH` for local GGUF files, or a
    /// catalog id (the default's when none), pulled into the cache the first time.
    public func paths(clock: any Clock) throws(ModelLoadFailure) -> (model: String, mmproj: String) {
        switch (model, mmproj) {
        case (let m?, let p?): return (m, p)
        case (let m?, nil) where m.hasSuffix(".gguf"):
            throw .usage("\(SettingName.model) \(m) is a file: give its vision projector with \(SettingName.mmproj) FILE.gguf too")
        case (nil, _?): throw .usage("\(SettingName.mmproj) needs \(SettingName.model) FILE.gguf beside it")
        case (let id, nil): return ModelCache().paths(try Self.pull(id ?? ModelCatalog.defaultID, clock: clock))
        }
    }

    /// Pulls catalog model `id` (a no-op when present), with progress on standard error.
    public static func pull(_ id: String, clock: any Clock) throws(ModelLoadFailure) -> ModelCache.Manifest {
        let progress = PullProgress(clock: clock)
        do {
            return try ModelPuller(clock: clock) { progress.report($0) }.pull(id)
        } catch {
            if case .unknownModel = error { throw .usage(error.description) }
            throw .failed("FAILED: \(error)")
        }
    }

    /// `--engine URL` (or `LOOKD_ENGINE`): the OpenAI-compatible server to ask instead of the
    /// in-process model, with `--model NAME` its name for the model and `LOOKD_API_KEY` its key; nil
    /// when none is set.
    public func remote(
        environment: [String: String] = ProcessInfo.processInfo.environment, clock: any Clock
    ) throws(ModelLoadFailure) -> RemoteEngine? {
        guard let url = engine else { return nil }
        var remote: RemoteEngine.Settings
        switch RemoteEngine.Settings.parse(url: url, model: model ?? "", apiKey: environment["LOOKD_API_KEY"]) {
        case .success(let parsed): remote = parsed
        case .failure(let problem): throw .usage(problem.text)
        }
        guard mmproj == nil else { throw .usage("\(SettingName.mmproj) is for local files; with \(SettingName.engine) the server has the model") }
        guard model != nil else { throw .usage("\(SettingName.engine) needs \(SettingName.model) NAME: the server's name for the model") }
        remote.firstTokenLimit = Double(firstTokenTimeout)
        remote.attempts = engineTries
        remote.parallel = engineParallel
        let quality = jpegQuality
        return RemoteEngine(settings: remote, clock: clock) { image in ([UInt8](try JPEGWriter.encode(image, quality: quality)), "image/jpeg") }
    }
}
