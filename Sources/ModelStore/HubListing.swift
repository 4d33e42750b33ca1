import Foundation

/// One file of a Hugging Face repo, as `/api/models/<repo>/tree/<revision>` lists it.
public struct HubFile: Decodable, Sendable, Equatable {
    public let type: String
    public let path: String
    public let size: Int?
    public let lfs: LFS?

    public struct LFS: Decodable, Sendable, Equatable {
        /// The file's sha256.
        public let oid: String
        public let size: Int

        public init(oid: String, size: Int) { self.oid = oid; self.size = size }
    }

    public init(type: String = "file", path: String, size: Int?, lfs: LFS?) {
        self.type = type
        self.path = path
        self.size = size
        self.lfs = lfs
    }

    var fileSize: Int? { lfs?.size ?? size }
}

/// Picks a repo's language model and mmproj: the language model in Q8_0, else Q4_K_M (else the only
/// one); the mmproj is the `mmproj*.gguf` (Q8_0 or F16 preferred when there are several).
public enum HubChoice {
    public static func choose(_ files: [HubFile]) -> (model: HubFile, mmproj: HubFile)? {
        let ggufs = files.filter { $0.type == "file" && $0.path.lowercased().hasSuffix(".gguf") }
        let name = { (f: HubFile) in (f.path as NSString).lastPathComponent.lowercased() }
        let projectors = ggufs.filter { name($0).hasPrefix("mmproj") }
        let models = ggufs.filter { !name($0).hasPrefix("mmproj") }
        func prefer(_ list: [HubFile], _ tags: [String]) -> HubFile? {
            for tag in tags { if let f = list.first(where: { name($0).contains(tag) }) { return f } }
            return list.count == 1 ? list[0] : nil
        }
        guard let model = prefer(models, ["q8_0", "q4_k_m"]),
            let mmproj = prefer(projectors, ["q8_0", "f16", "bf16"]) ?? projectors.first
        else { return nil }
        return (model, mmproj)
    }
}
