import Foundation

/// A model that ships inside lookd's repository (and its install), never downloaded: `shapes-tiny`,
/// lookd's own tiny MiniCPM-V 4.7 trained on a synthetic world of shapes (tools/train-shapes-tiny,
/// docs/engines.md). Its folder holds the pair and a `SHA256SUMS` that every load checks.
public struct BundledModel: Sendable, Equatable {
    public let id: String
    public let model: String
    public let mmproj: String

    public static let shapesTiny = BundledModel(id: "shapes-tiny", model: "shapes-tiny-Q8_0.gguf", mmproj: "shapes-tiny-mmproj-F16.gguf")
    public static let all = [shapesTiny]

    public static func named(_ id: String) -> BundledModel? { all.first { $0.id == id } }

    /// Why the files cannot be used, in a sentence that says where lookd looked.
    public struct Missing: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// Where its folder is: `$LOOKD_BUNDLED_MODELS/<id>`, else `share/lookd/models/<id>` beside the
    /// installed binary, else the checkout's `models/<id>` above the built binary.
    public func folderCandidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        if let env = environment["LOOKD_BUNDLED_MODELS"], !env.isEmpty { return [(env as NSString).appendingPathComponent(id)] }
        let exe = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().deletingLastPathComponent()
        var out = [exe.appendingPathComponent("../share/lookd/models/\(id)").standardized.path]
        var dir = exe
        for _ in 0..<5 {
            out.append(dir.appendingPathComponent("models/\(id)").path)
            dir = dir.deletingLastPathComponent()
        }
        return out
    }

    /// The folder that holds the pair, if any does.
    public func folder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        folderCandidates(environment: environment).first { dir in
            FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent(model))
                && FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent(mmproj))
        }
    }

    /// The pair's paths, checked against the folder's SHA256SUMS.
    public func paths(environment: [String: String] = ProcessInfo.processInfo.environment) throws(Missing) -> (model: String, mmproj: String) {
        guard let dir = folder(environment: environment) else {
            throw Missing(
                description: "\(id) ships with lookd, but its files (\(model), \(mmproj)) are not in "
                    + folderCandidates(environment: environment).prefix(3).joined(separator: ", ") + "; run lookd from its checkout or install")
        }
        let sums = (try? String(contentsOfFile: (dir as NSString).appendingPathComponent("SHA256SUMS"), encoding: .utf8)) ?? ""
        var expected: [String: String] = [:]
        for line in sums.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { expected[parts[1].hasPrefix("*") ? String(parts[1].dropFirst()) : parts[1]] = parts[0] }
        }
        for name in [model, mmproj] {
            let path = (dir as NSString).appendingPathComponent(name)
            guard let want = expected[name] else { throw Missing(description: "\(dir)/SHA256SUMS has no line for \(name)") }
            let got = SHA256.hex(ofFile: path) ?? "unreadable"
            guard got == want else { throw Missing(description: "\(path) does not match its sha256 in SHA256SUMS (expected \(want), got \(got))") }
        }
        return ((dir as NSString).appendingPathComponent(model), (dir as NSString).appendingPathComponent(mmproj))
    }
}
