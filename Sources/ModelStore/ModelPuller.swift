import Foundation
import LookCore
import VLM

/// Brings a catalog model into the cache: reads the repo's listing, picks the pair, downloads both
/// files (resumable, verified), and records what was chosen. A model already there is not fetched.
public struct ModelPuller {
    public let cache: ModelCache
    public let downloader: Downloader
    /// Where lookd's own models are (BundledModels), from LOOKD_OWN_MODELS or beside the binary.
    let ownModels: @Sendable (String) -> String?

    /// `HF_ENDPOINT` (default https://huggingface.co) and `HF_TOKEN` are honoured.
    public init(
        cache: ModelCache = ModelCache(), environment: [String: String] = ProcessInfo.processInfo.environment,
        clock: any Clock, progress: @escaping @Sendable (Downloader.Progress) -> Void = { _ in }
    ) {
        self.cache = cache
        ownModels = { BundledModels.folder($0, environment: environment) }
        downloader = Downloader(
            endpoint: environment["HF_ENDPOINT"] ?? "https://huggingface.co",
            token: environment["HF_TOKEN"], idleTimeout: environment["LOOKD_PULL_TIMEOUT"].flatMap(Double.init) ?? 30, clock: clock,
            progress: progress)
    }

    public func pull(_ id: String) throws(PullError) -> ModelCache.Manifest {
        guard let entry = ModelCatalog.model(id) else { throw .unknownModel(id: id) }
        if entry.shipped {
            let manifest = try BundledModels.install(entry, into: cache, from: ownModels(id))
            makeVisionCopy(cache.paths(manifest).mmproj)
            return manifest
        }
        if let present = cache.present(id) { return present }
        let listing = try downloader.listing(repo: entry.repo, revision: entry.revision, cache: cache.root)
        guard let (model, mmproj) = HubChoice.choose(listing) else { throw .noPair(repo: entry.repo, revision: entry.revision) }
        let dir = cache.folder(id)
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            throw .disk(file: dir, reason: error.localizedDescription)
        }
        var files: [ModelCache.Manifest.File] = []
        for file in [model, mmproj] {
            let name = (file.path as NSString).lastPathComponent
            try downloader.download(
                downloader.fileURL(repo: entry.repo, revision: entry.revision, path: file.path),
                to: (dir as NSString).appendingPathComponent(name), size: file.fileSize,
                sha256: file.lfs?.oid, cache: cache.root)
            let size = (try? FileManager.default.attributesOfItem(atPath: (dir as NSString).appendingPathComponent(name))[.size] as? Int) ?? 0
            files.append(.init(name: name, size: size, sha256: file.lfs?.oid))
        }
        let manifest = ModelCache.Manifest(id: id, repo: entry.repo, revision: entry.revision, model: files[0], mmproj: files[1])
        do { try cache.write(manifest) } catch { throw .disk(file: dir, reason: error.localizedDescription) }
        makeVisionCopy(cache.paths(manifest).mmproj)
        return manifest
    }

    /// The int8 tower's copy, made now so the first watch does not wait for it (its progress goes
    /// where the download's went), where this CPU runs it by default (TowerChoice, timed once): on
    /// one where the F16 tower is the faster, no copy is made that nothing would use. When it cannot
    /// be made, the first load tries again and says why.
    private func makeVisionCopy(_ mmproj: String) {
        guard TowerChoice.current(cache: cache).choice == .q8_0 else { return }
        _ = VisionCopies(cache: cache).tower(for: mmproj, choice: .q8_0, clock: downloader.clock, progress: downloader.progress)
    }
}
