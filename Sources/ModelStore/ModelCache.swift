import Foundation

/// Where models live: `$LOOKD_MODELS`, else `$XDG_CACHE_HOME/lookd/models`, else
/// `~/.cache/lookd/models`; one folder per catalog id with the files and `lookd-model.json`, which
/// records what was chosen from the repo.
public struct ModelCache: Sendable {
    public let root: String

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let dir = environment["LOOKD_MODELS"], !dir.isEmpty {
            root = dir
        } else if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            root = (xdg as NSString).appendingPathComponent("lookd/models")
        } else {
            root = ((environment["HOME"] ?? NSHomeDirectory()) as NSString).appendingPathComponent(".cache/lookd/models")
        }
    }

    public init(root: String) { self.root = root }

    public func folder(_ id: String) -> String { (root as NSString).appendingPathComponent(id) }

    /// What a pull chose and verified.
    public struct Manifest: Codable, Sendable, Equatable {
        public var id: String
        public var repo: String
        public var revision: String
        public var model: File
        public var mmproj: File

        public struct File: Codable, Sendable, Equatable {
            public var name: String
            public var size: Int
            public var sha256: String?
        }
    }

    /// The manifest of a pulled model whose files are all in place, else nil.
    /// Files copied in by hand (the repo's own names, no manifest) count too: the pair is chosen from
    /// the folder's `.gguf` files as a pull chooses it from the repo's listing.
    public func present(_ id: String) -> Manifest? {
        let dir = folder(id)
        guard let data = FileManager.default.contents(atPath: (dir as NSString).appendingPathComponent("lookd-model.json")),
            let manifest = try? JSONDecoder().decode(Manifest.self, from: data)
        else { return copiedIn(id) }
        for file in [manifest.model, manifest.mmproj] {
            let size = (try? FileManager.default.attributesOfItem(atPath: (dir as NSString).appendingPathComponent(file.name))[.size] as? Int) ?? -1
            guard size == file.size else { return nil }
        }
        return manifest
    }

    /// A pair put in the model's folder by hand, with the names the repo publishes: taken as it is
    /// (its size is its own; no sha256 is known to check it against).
    func copiedIn(_ id: String) -> Manifest? {
        let dir = folder(id)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.lowercased().hasSuffix(".gguf") }
        let files = names.compactMap { name -> HubFile? in
            let size = (try? FileManager.default.attributesOfItem(atPath: (dir as NSString).appendingPathComponent(name))[.size] as? Int) ?? 0
            return size > 0 ? HubFile(path: name, size: size, lfs: nil) : nil
        }
        guard let (model, mmproj) = HubChoice.choose(files), let entry = ModelCatalog.model(id) else { return nil }
        return Manifest(
            id: id, repo: entry.repo, revision: entry.revision, model: .init(name: model.path, size: model.fileSize ?? 0, sha256: nil),
            mmproj: .init(name: mmproj.path, size: mmproj.fileSize ?? 0, sha256: nil))
    }

    /// The two paths of a present model.
    public func paths(_ manifest: Manifest) -> (model: String, mmproj: String) {
        let dir = folder(manifest.id)
        return ((dir as NSString).appendingPathComponent(manifest.model.name), (dir as NSString).appendingPathComponent(manifest.mmproj.name))
    }

    func write(_ manifest: Manifest) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(manifest).write(
            to: URL(fileURLWithPath: (folder(manifest.id) as NSString).appendingPathComponent("lookd-model.json")),
            options: .atomic)
    }
}
