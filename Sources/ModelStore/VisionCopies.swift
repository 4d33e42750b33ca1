import Foundation
import LookCore
import VLM

/// Where lookd keeps its Q8_0 copies of vision towers (VisionQuantizer makes them): in the model
/// cache, `vision-q8_0/`, one a source file, named by the file and a hash of its full path, never
/// beside a user's own file. A copy records the size and modification time of the file it was made
/// from, and its layout (`VisionQuantizer.format`); when either changes, the copy is made again.
public struct VisionCopies: Sendable {
    public let folder: String

    public init(cache: ModelCache = ModelCache()) {
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
        guard let stamp = VisionQuantizer.stamp(of: mmproj), let header = try? GGUFMetadata.read(path: copy),
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
        case .copy(let path): return path
        case .toMake(let path):
            try? FileManager.default.createDirectory(atPath: (folder as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            if let problem = PrivateFolder.problem(folder) { throw VisionQuantizer.Failure(reason: problem) }
            removeLeftovers(of: path)
            try VisionQuantizer.write(from: mmproj, to: path, progress: progress)
            return path
        }
    }

    /// The file the tower loads for `mmproj` with `choice`, for a command about to load it: the copy
    /// (made now when it is not there, its progress reported as a download's), or nil for the file
    /// itself, with the reason when a copy could not be made.
    public func tower(for mmproj: String, choice: VisionWeights, progress: (Downloader.Progress) -> Void) -> (path: String?, problem: String?) {
        guard (try? GGUFMetadata.read(path: mmproj))?.string("general.architecture") == "clip" else { return (nil, nil) }
        let started = Date()
        let name = "\((mmproj as NSString).lastPathComponent) → Q8_0 tower (made once)"
        do {
            let path = try prepare(mmproj, choice: choice) { bytes, total in
                let seconds = Date().timeIntervalSince(started)
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
