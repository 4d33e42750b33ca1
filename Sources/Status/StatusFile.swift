import Foundation
import LookCore
import Platform
import Records

/// The file where a running watch says what it is doing, for `lookd status`: rewritten whole
/// (a temporary file renamed into place) after every frame, fire and reload.
public enum StatusFile {
    public static let name = "status.json"
    public static let schema = "lookd-status/1"
    /// The most bytes a status file lookd wrote has (a few rules take a few kB): a larger file is
    /// not one of lookd's, and is not read whole.
    public static let largest = 4 << 20

    /// Where a watch writes it: `--status FILE`, else the service's runtime directory
    /// (`$RUNTIME_DIRECTORY`, /run/lookd: `status.json`, the service's one), else, for a watch
    /// started by hand, `status-<pid>.json` in `$XDG_RUNTIME_DIR/lookd`, else /tmp/lookd-<uid>: each
    /// watch its own, so two watches never take turns in one file.
    /// In a watch of several cameras, each camera's is that path with `-CAMERA` before `.json`.
    public static func path(
        explicit: String?, camera: CameraName = .only, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        let path: String
        if let explicit {
            path = explicit
        } else if let service = serviceFolder(environment) {
            path = (service as NSString).appendingPathComponent(name)
        } else {
            path = (folders(environment).first! as NSString).appendingPathComponent("status-\(getpid()).json")
        }
        guard camera.isNamed else { return path }
        let parts = path as NSString
        return parts.deletingPathExtension + camera.fileSuffix + "." + (parts.pathExtension.isEmpty ? "json" : parts.pathExtension)
    }

    /// Where `lookd status` looks, in order: the service's status, every watch's in this user's
    /// folders (the newest first), then the service's /run/lookd; those that exist.
    public static func candidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var found: [String] = []
        if let service = serviceFolder(environment) {
            // The service's own, then its cameras' (`status-<camera>.json`, in a watch of several).
            let cameras = ((try? FileManager.default.contentsOfDirectory(atPath: service)) ?? []).filter { $0 != name && isStatusName($0) }
            found += ([name] + cameras.sorted()).map { (service as NSString).appendingPathComponent($0) }
        }
        for folder in folders(environment).dropFirst(serviceFolder(environment) == nil ? 0 : 1) {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter(isStatusName)
            let paths = names.map { (folder as NSString).appendingPathComponent($0) }
            found += paths.sorted { modified($0) > modified($1) }
        }
        found += serviceFiles(in: "/run/lookd").map(\.path) // the service's, read from a shell
        var seen = Set<String>()
        return found.filter { FileManager.default.fileExists(atPath: $0) && seen.insert($0).inserted }
    }

    /// A service's status files in its runtime `folder` (or the folder of `file`): its own (`status.json`), or its cameras'
    /// (`status-<camera>.json`) in a watch of several, by camera. A file named by a process is a
    /// watch's by hand, not the service's.
    public static func serviceFiles(beside file: String) -> [(camera: CameraName, path: String)] { serviceFiles(in: FilePath.folder(of: file)) }

    public static func serviceFiles(in folder: String) -> [(camera: CameraName, path: String)] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0 == name || (isStatusName($0) && pid(ofStatusFile: $0) == nil)
        }
        return names.sorted().map { file in
            (file == name ? .only : CameraName(String(file.dropFirst(7).dropLast(5))), (folder as NSString).appendingPathComponent(file))
        }
    }

    /// `status.json`, a watch's own `status-<pid>.json`, or a camera's (`status-<camera>.json`,
    /// `status-<pid>-<camera>.json`: a watch of several cameras has one a camera).
    static func isStatusName(_ file: String) -> Bool {
        file == name || (file.hasPrefix("status-") && file.hasSuffix(".json") && file.count > 12)
    }

    /// The process a watch's own `status-<pid>.json` (or a camera's `status-<pid>-<camera>.json`) names.
    static func pid(ofStatusFile file: String) -> Int? {
        guard file.hasPrefix("status-"), file.hasSuffix(".json") else { return nil }
        return (file.dropFirst(7).dropLast(5).split(separator: "-", maxSplits: 1).first).flatMap { Int($0) }
    }

    private static func modified(_ path: String) -> Double {
        var st = stat()
        return stat(path, &st) == 0 ? Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9 : 0
    }

    private static func serviceFolder(_ env: [String: String]) -> String? {
        env["RUNTIME_DIRECTORY"]?.split(separator: ":").first.map(String.init)
    }

    /// Removes the status files in `path`'s folder that watches which are no longer running left
    /// (`status-<pid>.json`), all but the newest `keep` (what `lookd status` shows of the last run).
    public static func pruneStale(near path: String, keep: Int = 3) {
        let folder = FilePath.folder(of: path)
        // Only a watch's own files, which name its process; a service's cameras' name none.
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { pid(ofStatusFile: $0) != nil }
        let stale = names.map { (folder as NSString).appendingPathComponent($0) }.filter { $0 != path }
            .filter { file in !(pid(ofStatusFile: (file as NSString).lastPathComponent).map(isLookd) ?? false) }
            .sorted { modified($0) > modified($1) }
        for file in stale.dropFirst(keep) { unlink(file) }
    }

    private static func folders(_ env: [String: String]) -> [String] {
        var out: [String] = []
        if let dir = env["RUNTIME_DIRECTORY"]?.split(separator: ":").first { out.append(String(dir)) }
        if let xdg = env["XDG_RUNTIME_DIR"], !xdg.isEmpty { out.append((xdg as NSString).appendingPathComponent("lookd")) }
        out.append("/tmp/lookd-\(getuid())")
        return out
    }

    /// Writes `status` to `path`, making its folder; a failure is logged once, not thrown: the
    /// watch matters more than its status.
    public static func write(_ status: JSON, to path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let problem = problem(path, environment: environment) { return problem }
        let folder = FilePath.folder(of: path)
        do {
            if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        } catch {
            return "The status file's folder \(folder) cannot be made: \(error.localizedDescription)"
        }
        do throws(SafeFile.Failure) {
            try SafeFile.write(status.text(indent: 1) + "\n", to: path)
            return nil
        } catch {
            return "The status file \(error.description)."
        }
    }

    /// Why a status file cannot be kept at `path` (its folder made private, or checked, first); nil
    /// when it can. The start line says so rather than name a file that will never be there.
    public static func problem(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let folder = FilePath.folder(of: path)
        // The default folders are made private (mode 0700) and checked to be this user's own.
        if folders(environment).dropFirst(environment["RUNTIME_DIRECTORY"] == nil ? 0 : 1).contains(folder) {
            if let problem = PrivateFolder.problem(folder, otherwise: "\(SettingName.status) FILE") { return "The status file's folder: \(problem)." }
        }
        // Rewritten whole after every frame: a pipe or a device there is refused, not written into.
        var st = stat()
        if stat(path, &st) == 0, st.st_mode & S_IFMT != S_IFREG {
            return "The status file \(path) cannot be used: it is not a regular file (lookd rewrites it whole after every frame)."
        }
        return SafePath.problem(path, what: "status file")
    }

    /// A status file as `lookd status` reads it: where it was, its bytes and fields, and whether the
    /// watch that wrote it still runs (its process is alive and it has not stopped).
    public struct Reading {
        public let path: String
        public let data: Data
        public let status: [String: Any]
        public let running: Bool
    }

    /// Reads `explicit`, else the status of the running watch among the `candidates()` (the
    /// newest when several run: `running()` lists them all), else the newest one there is.
    public static func read(explicit: String?) throws(RecordsError) -> Reading {
        if explicit == nil {
            let all = candidates()
            if let found = all.lazy.compactMap({ try? read(explicit: $0, trusting: false) }).first(where: \.running) { return found }
            guard let newest = all.first else {
                throw .noStatus(folders(ProcessInfo.processInfo.environment).map { $0 + "/status-<pid>.json" }.joined(separator: ", "))
            }
            return try read(explicit: newest, trusting: false)
        }
        return try read(explicit: explicit!, trusting: true)
    }

    /// The status of every watch started by hand (or the service) that runs now.
    public static func running() -> [Reading] {
        candidates().compactMap { try? read(explicit: $0, trusting: false) }.filter(\.running)
    }

    /// Reads the status file at `path`; `trusting`: it was named, so it is read wherever it is.
    private static func read(explicit path: String, trusting: Bool) throws(RecordsError) -> Reading {
        guard FileManager.default.fileExists(atPath: path) else { throw .noStatus(path) }
        // In /tmp, where every user may make /tmp/lookd-<uid> first, only this user's own private
        // folder and file are read: another user's would tell `lookd status` what they choose.
        let folder = FilePath.folder(of: path)
        if !trusting, folder == "/tmp/lookd-\(getuid())" {
            var st = stat()
            if let problem = PrivateFolder.notOwn(folder)
                ?? (lstat(path, &st) == 0 && st.st_uid != geteuid() ? "\(path) belongs to another user" : nil)
            {
                throw .cannotOpen(what: "status file", path: path, reason: "it is not trusted: \(problem)")
            }
        }
        guard case .bytes(let data) = BoundedRead.read(path, limit: largest),
            let status = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else {
            throw .cannotOpen(what: "status file", path: path, reason: "it is not a status file lookd wrote")
        }
        let alive = (status["pid"] as? Int).map(isLookd) ?? false
        return Reading(path: path, data: data, status: status, running: alive && status["state"] as? String != "stopped")
    }

    /// Whether `pid` is a running lookd: a process of that number, whose program (when this user
    /// may read it) is lookd. A status file left by a lookd that died names a number the system may
    /// have given another program since; a number out of range names none.
    static func isLookd(_ pid: Int) -> Bool {
        guard let id = Int32(exactly: pid), id > 0, kill(id, 0) == 0 || errno == EPERM else { return false }
        guard let cmdline = FileManager.default.contents(atPath: "/proc/\(id)/cmdline") else { return true }
        let program = String(decoding: cmdline.prefix { $0 != 0 }, as: UTF8.self)
        return program.isEmpty || (program as NSString).lastPathComponent == "lookd"
    }

    /// Where the instance `name` of the template unit (`lookd@NAME`) keeps its status:
    /// `/run/lookd-NAME/status.json` (`LOOKD_RUN_DIR` stands for /run, for tests).
    public static func instancePath(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        "\(environment["LOOKD_RUN_DIR"] ?? "/run")/lookd-\(name)/\(Self.name)"
    }

    /// The status file of the instance lookd@`name` (its first camera's, for an instance of several),
    /// when it has one; else why not, in words (a name that is no instance's: letters, digits, - and
    /// _, at most 64).
    public static func instance(_ name: String) -> Result<String, RecordsError> {
        guard !name.isEmpty, name.count <= 64,
            name.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_".unicodeScalars.contains($0)) })
        else { return .failure(.badInstance(name.withVisibleControls())) }
        let path = instancePath(name)
        // An instance of several cameras has one a camera: the first stands for it (they share the history).
        let files = serviceFiles(in: FilePath.folder(of: path))
        guard let first = files.first else { return .failure(.noInstance(name: name, path: path, known: instances())) }
        return .success(first.path)
    }

    /// The status file of the camera `name` of a watch of several (a running one's first, else the
    /// newest), when one is found among the candidates and the service's.
    public static func camera(_ name: String) -> String? {
        let files = candidates().compactMap { try? read(explicit: $0, trusting: false) }.filter { $0.status["camera"] as? String == name }
        return (files.first(where: \.running) ?? files.first)?.path
    }

    /// The instances that have a status file, by name, sorted.
    public static func instances(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let root = environment["LOOKD_RUN_DIR"] ?? "/run"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.filter { $0.hasPrefix("lookd-") }.map { String($0.dropFirst(6)) }
            .filter { !$0.isEmpty && !serviceFiles(in: "\(root)/lookd-\($0)").isEmpty }.sorted()
    }
}
