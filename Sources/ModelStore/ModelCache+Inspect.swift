import Foundation
import Platform

extension ModelCache {
    /// What `lookd models inspect` was given that names no pair it can read, in words; `notPulled`:
    /// a catalog id whose pair is not in the cache.
    public struct InspectProblem: Error, Sendable {
        public let text: String
        public var notPulled = false
    }

    /// The two files `lookd models inspect` reads: the two given, one language model and the one
    /// `mmproj*.gguf` beside it, or a catalog id's pair in this cache.
    public func inspected(_ given: [String]) -> Result<(model: String, mmproj: String), InspectProblem> {
        switch given.count {
        case 2: return .success((given[0], given[1]))
        case 1 where !given[0].hasSuffix(".gguf") && !FileManager.default.fileExists(atPath: given[0]):
            let id = given[0]
            guard ModelCatalog.model(id) != nil else {
                return .failure(InspectProblem(text: "\(id) is neither a .gguf file nor a catalog id (see lookd models)"))
            }
            guard let manifest = present(id) else {
                return .failure(InspectProblem(text: "\(id) is not in the model cache \(root): run lookd pull \(id)", notPulled: true))
            }
            return .success(paths(manifest))
        case 1: return Self.mmproj(beside: given[0]).map { (given[0], $0) }
        default: return .failure(InspectProblem(text: "models inspect takes MODEL.gguf [MMPROJ.gguf], or a catalog id"))
        }
    }

    /// The one mmproj in a language model's folder (a `.gguf` with `mmproj` in its name: the Hub's
    /// `mmproj-….gguf`, lookd's own `shapes-tiny-mmproj-F16.gguf`), or why there is none to take.
    static func mmproj(beside model: String) -> Result<String, InspectProblem> {
        let folder = FilePath.folder(of: model)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? [])
            .filter { $0.lowercased().contains("mmproj") && $0.hasSuffix(".gguf") && !$0.hasPrefix(".") }.sorted()
        guard names.count == 1 else {
            return .failure(
                InspectProblem(
                    text: names.isEmpty
                        ? "no mmproj*.gguf beside \(model): give the mmproj as the second file"
                        : "\(names.count) mmproj files beside \(model) (\(names.joined(separator: ", "))): give one as the second file"))
        }
        return .success((folder as NSString).appendingPathComponent(names[0]))
    }
}
