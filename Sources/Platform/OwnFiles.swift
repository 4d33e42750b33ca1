import Foundation

/// The files lookd ships beside itself (its sounds, its own model): an environment variable's
/// folder, else `PREFIX/share/lookd/<installed>` beside the installed binary, else the checkout's
/// `<checkout>` folder above the built binary. A folder counts only when `marker` is in it.
public enum OwnFiles {
    public static func folder(
        environment variable: String, installed: String, checkout: String, marker: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        if let env = environment[variable], !env.isEmpty { return env }
        let exe = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().deletingLastPathComponent()
        var candidates = [exe.appendingPathComponent("../share/lookd/\(installed)").standardized]
        var dir = exe
        for _ in 0..<5 {
            candidates.append(dir.appendingPathComponent(checkout))
            dir = dir.deletingLastPathComponent()
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent(marker).path) }?.path
    }
}
