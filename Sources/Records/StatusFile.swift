import Foundation
import LookCore

/// The file where a running watch says what it is doing, for `lookd status`: rewritten whole
/// (a temporary file renamed into place) after every frame, fire and reload.
public enum StatusFile {
    public static let name = "status.json"
    public static let schema = "lookd-status/1"

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
    public static func write(_ status: JSON, to path: String) -> String? {
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try (status.text(indent: 1) + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            return nil
        } catch {
            return "The status file \(path) cannot be written: \(error.localizedDescription)"
        }
    }
}
