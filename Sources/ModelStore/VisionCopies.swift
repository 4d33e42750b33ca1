import Foundation
import LookCore
import Platform
import VLM

/// Where lookd keeps its Q8_0 copies of vision towers (VisionQuantizer makes them): in the model
/// cache, `vision-q8_0/`, one a source file, named by the file and a hash of its full path, never
/// beside a user's own file. A copy records the size and modification time of the file it was made
/// from, and its layout (`VisionQuantizer.format`); when either changes, the copy is made again.
/// Beside each copy, `<copy>.sha256` holds its SHA-256 and size, written once the copy is in place:
/// a copy cut short or damaged in the cache (a full disk, a bad sector, a hand) is found at load,
/// before it answers garbage or fails every start, and is made again.
public struct VisionCopies: Sendable {
    public let folder: String
    public let cache: ModelCache

    public init(cache: ModelCache = ModelCache()) {
        self.cache = cache
        folder = (cache.root as NSString).appendingPathComponent("vision-q8_0")
    }

    /// Where the copy of `mmproj` lives.
    public func path(for mmproj: String) -> String {
        let full = resolved(mmproj)
        let stem = ((full as NSString).lastPathComponent as NSString).deletingPathExtension
        return (folder as NSString).appendingPathComponent("\(stem)-\(SHA256.hex(of: Array(full.utf8)).prefix(12))-Q8_0.gguf")
    }

    private func resolved(_ path: String) -> String {
        realpath(path, nil).map { p in
            defer { free(p) }
            return String(cString: p)
        } ?? path
    }

    /// How the tower of `mmproj` would run with `choice`.
    public enum State: Equatable, Sendable {
        /// The file as it is (f16 chosen, or nothing in it to make int8).
        case asPublished
        /// lookd's copy, made and current.
        case copy(path: String)
        /// The copy still to be made (or made again: its source changed).
        case toMake(path: String)
    }

    public func state(of mmproj: String, choice: VisionWeights) -> State {
        guard choice == .q8_0, (VisionQuantizer.eligible(mmproj) ?? 0) > 0 else { return .asPublished }
        let copy = path(for: mmproj)
        guard let sum = Checksum.read(copy), sum.size == Self.size(of: copy), let stamp = VisionQuantizer.stamp(of: mmproj),
            let header = try? GGUFMetadata.read(path: copy),
            header.string(VisionQuantizer.weightsKey) == "q8_0", header.integer(VisionQuantizer.formatKey) == VisionQuantizer.format,
            header.integer(VisionQuantizer.sourceSizeKey) == Int(stamp.size),
            header.integer(VisionQuantizer.sourceTimeKey) == Int(stamp.mtime)
        else { return .toMake(path: copy) }
        return .copy(path: copy)
    }

    /// The file the tower loads for `mmproj` with `choice`: the copy, made first when it is not there
    /// (`progress` gets the bytes written and the total).
    public func prepare(_ mmproj: String, choice: VisionWeights, progress: (Int64, Int64) -> Void = { _, _ in }) throws(VisionQuantizer.Failure)
        -> String
    {
        switch state(of: mmproj, choice: choice) {
        case .asPublished: return mmproj
        case .copy(let path):
            // The whole copy is read once to check it (the load reads it next, from the page cache).
            // Only a copy of this user's own, of the size its checksum says, is read to be checked
            // (another user's link to /dev/zero would be hashed for ever).
            if let sum = Checksum.read(path), RegularFile.isOwn(path, size: sum.size), sum.hex == SHA256.hex(ofFile: path) { return path }
            Log.shared.warning("the int8 tower copy \(path) does not match its checksum (damaged or cut short); making it again")
            return try make(path, from: mmproj, progress: progress)
        case .toMake(let path): return try make(path, from: mmproj, progress: progress)
        }
    }

    private func make(_ path: String, from mmproj: String, progress: (Int64, Int64) -> Void) throws(VisionQuantizer.Failure) -> String {
        let parent = FilePath.folder(of: folder)
        if let problem = SafePath.problem(parent, what: "model cache") { throw VisionQuantizer.Failure(reason: problem) }
        try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        if let problem = PrivateFolder.problem(folder, otherwise: "LOOKD_MODELS=FOLDER") { throw VisionQuantizer.Failure(reason: problem) }
        removeLeftovers(of: path)
        unlink(Checksum.path(path))
        try VisionQuantizer.write(from: mmproj, to: path, progress: progress)
        guard let hex = SHA256.hex(ofFile: path) else { throw VisionQuantizer.Failure(reason: "\(path) cannot be read back") }
        do throws(SafeFile.Failure) {
            try SafeFile.write("\(hex) \(Self.size(of: path))\n", to: Checksum.path(path))
        } catch {
            throw VisionQuantizer.Failure(reason: error.description)
        }
        return path
    }

    private static func size(of path: String) -> Int64 {
        var st = stat()
        return stat(path, &st) == 0 ? Int64(st.st_size) : -1
    }

    /// A copy's `<copy>.sha256`: its SHA-256 in hex and its size in bytes.
    enum Checksum {
        static func path(_ copy: String) -> String { copy + ".sha256" }

        static func read(_ copy: String) -> (hex: String, size: Int64)? {
            guard let data = RegularFile.readOwn(path(copy), limit: 256) else { return nil }
            let words = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace)
            guard words.count == 2, words[0].count == 64, let size = Int64(words[1]) else { return nil }
            return (String(words[0]), size)
        }
    }

    /// The file the tower loads for `mmproj` with `choice`, for a command about to load it: the copy
    /// (made now when it is not there, its progress reported as a download's), or nil for the file
    /// itself, with the reason when a copy could not be made.
    public func tower(
        for mmproj: String, choice: VisionWeights, clock: any Clock, progress: (Downloader.Progress) -> Void
    ) -> (path: String?, problem: String?) {
        guard (try? GGUFMetadata.read(path: mmproj))?.string("general.architecture") == "clip" else { return (nil, nil) }
        let started = clock.now()
        let name = "\((mmproj as NSString).lastPathComponent) → Q8_0 tower (made once)"
        do {
            let path = try prepare(mmproj, choice: choice) { bytes, total in
                let seconds = clock.now() - started
                progress(.init(file: name, bytes: bytes, total: total, bytesPerSecond: seconds > 0 ? Double(bytes) / seconds : 0))
            }
            return (path == mmproj ? nil : path, nil)
        } catch {
            return (nil, error.description)
        }
    }

    /// Partial copies of `path` that a process killed mid-copy left (`.<name>.partial-<pid>…`,
    /// whose process is gone): never used, and removed before a new copy is made.
    private func removeLeftovers(of path: String) {
        let prefix = ".\((path as NSString).lastPathComponent).partial-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
            let pid = Int32(name.dropFirst(prefix.count).prefix { $0.isNumber }) ?? 0
            guard pid > 0, kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink((folder as NSString).appendingPathComponent(name))
        }
    }
}
