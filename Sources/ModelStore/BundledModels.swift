import Foundation
import LookCore
import Platform

/// The models lookd ships itself (`models/<id>/` in the repository, `PREFIX/share/lookd/models/<id>/`
/// when installed): never downloaded. The first use copies the pair into the cache, each file checked
/// against the folder's `SHA256SUMS` (a Git LFS pointer or a damaged file is refused, not loaded), so
/// the int8 tower, `lookd models` and `models inspect` treat it as any pulled model.
public enum BundledModels {
    /// The model's folder, or nil when this installation has none.
    public static func folder(_ id: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let folder = OwnFiles.folder(
            environment: "LOOKD_OWN_MODELS", installed: "models", checkout: "models", marker: "\(id)/SHA256SUMS", environment: environment
        ).map { ($0 as NSString).appendingPathComponent(id) }
        return folder.flatMap { FileManager.default.fileExists(atPath: ($0 as NSString).appendingPathComponent("SHA256SUMS")) ? $0 : nil }
    }

    /// The model in the cache, copied in from its folder when the cache has none or an older one.
    static func install(_ entry: CatalogModel, into cache: ModelCache, from folder: String?) throws(PullError) -> ModelCache.Manifest {
        guard let folder else { throw .notShipped(id: entry.id) }
        let sums = try checksums(folder)
        let names = sums.keys.sorted()
        guard let mmproj = names.first(where: { $0.contains("mmproj") }), let model = names.first(where: { !$0.contains("mmproj") }) else {
            throw .noPair(repo: folder, revision: "SHA256SUMS")
        }
        let want = [model, mmproj].map {
            ModelCache.Manifest.File(name: $0, size: size(of: (folder as NSString).appendingPathComponent($0)), sha256: sums[$0])
        }
        if let present = cache.present(entry.id), present.model == want[0], present.mmproj == want[1] { return present }
        let dir = cache.folder(entry.id)
        do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
            throw .disk(file: dir, reason: error.localizedDescription)
        }
        // Read once, checked, and what was checked is what is written (SafeFile: beside, then renamed).
        var contents: [[UInt8]] = []
        for file in want {
            let from = (folder as NSString).appendingPathComponent(file.name)
            let bytes = FileManager.default.contents(atPath: from).map { [UInt8]($0) }
            let got = bytes.map { SHA256.hex(of: $0) } ?? "unreadable"
            guard let bytes, got == file.sha256 else { throw .damagedOwnModel(file: from, expected: file.sha256 ?? "", got: got) }
            contents.append(bytes)
        }
        for (file, bytes) in zip(want, contents) {
            let to = (dir as NSString).appendingPathComponent(file.name)
            do throws(SafeFile.Failure) { try SafeFile.write(bytes, to: to) } catch { throw .disk(file: to, reason: error.reason) }
        }
        let manifest = ModelCache.Manifest(id: entry.id, repo: entry.repo, revision: entry.revision, model: want[0], mmproj: want[1])
        do { try cache.write(manifest) } catch { throw .disk(file: dir, reason: error.localizedDescription) }
        return manifest
    }

    /// `SHA256SUMS`: `<hex>  <name>` lines.
    private static func checksums(_ folder: String) throws(PullError) -> [String: String] {
        let path = (folder as NSString).appendingPathComponent("SHA256SUMS")
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw .disk(file: path, reason: "it cannot be read") }
        var sums: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count == 2 { sums[String(parts[1])] = String(parts[0]) }
        }
        return sums
    }

    private static func size(of path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
