import Foundation
import LookCore

/// The file where a running watch says what it is doing, for `lookd status`: rewritten whole
/// (a temporary file renamed into place) after every frame, fire and reload.
public enum StatusFile {
    public static let name = "status.json"
    public static let schema = "lookd-status/1"
    /// The most bytes a status file lookd wrote has (a few rules take a few kB): a larger file is
    /// not one of lookd's, and is not read whole.
    public static let largest = 4 << 20

    /// Where a watch writes it: `--status FILE`, else the service's runtime directory
    /// (`$RUNTIME_DIRECTORY`, /run/lookd), else `$XDG_RUNTIME_DIR/lookd`, else /tmp/lookd-<uid>.
    public static func path(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit { return explicit }
        return (folders(environment).first! as NSString).appendingPathComponent(name)
    }

    /// Where `lookd status` looks, in order: the same places, then the service's /run/lookd.
    public static func candidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        (folders(environment) + ["/run/lookd"]).map { ($0 as NSString).appendingPathComponent(name) }
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
        let folder = (path as NSString).deletingLastPathComponent
        // The default folders are made private (mode 0700) and checked to be this user's own.
        if folders(environment).dropFirst(environment["RUNTIME_DIRECTORY"] == nil ? 0 : 1).contains(folder) {
            if let problem = PrivateFolder.problem(folder) { return "The status file's folder: \(problem)." }
        }
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

    /// A status file as `lookd status` reads it: where it was, its bytes and fields, and whether the
    /// watch that wrote it still runs (its process is alive and it has not stopped).
    public struct Reading {
        public let path: String
        public let data: Data
        public let status: [String: Any]
        public let running: Bool
    }

    /// Reads `explicit`, else the first status file that exists among the `candidates()`.
    public static func read(explicit: String?) throws(RecordsError) -> Reading {
        let candidates = explicit.map { [$0] } ?? self.candidates()
        guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw .noStatus(candidates.joined(separator: ", "))
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

    /// The instances that have a status file, by name, sorted.
    public static func instances(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let root = environment["LOOKD_RUN_DIR"] ?? "/run"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.filter { $0.hasPrefix("lookd-") }.map { String($0.dropFirst(6)) }
            .filter { !$0.isEmpty && FileManager.default.fileExists(atPath: instancePath($0, environment: environment)) }.sorted()
    }
}
