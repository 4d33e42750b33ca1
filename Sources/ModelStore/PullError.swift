/// Why a model could not be pulled. Each sentence names the URL or file and the cache path.
public enum PullError: Error, CustomStringConvertible, Equatable {
    case unknownModel(id: String)
    case unreachable(url: String, reason: String, cache: String)
    case http(url: String, status: Int, cache: String)
    case noPair(repo: String, revision: String)
    case badListing(url: String, reason: String)
    /// The server sent more than the listing's size for the file.
    case tooLong(url: String, listed: Int, cache: String)
    case checksum(file: String, expected: String, got: String, cache: String)
    case size(file: String, expected: Int, got: Int, cache: String)
    case disk(file: String, reason: String)
    /// A model lookd ships itself: not beside this installation, or not the file its SHA256SUMS names.
    case notShipped(id: String)
    case damagedOwnModel(file: String, expected: String, got: String)

    public var description: String {
        switch self {
        case .unknownModel(let id):
            return "There is no model \"\(id)\" in lookd's catalog; `lookd models` lists them."
        case .unreachable(let url, let reason, let cache):
            return
                "Could not reach \(url) (\(reason)). The model is not in the cache (\(cache)); connect to the network, or copy the repo's language-model .gguf and its mmproj*.gguf into the model's folder there (\(cache)/<id>/)."
        case .http(let url, let status, let cache):
            return
                "\(url) answered HTTP \(status)\(status == 404 ? " (not found)" : status == 401 || status == 403 ? " (set HF_TOKEN if the repo is gated)" : ""). Nothing was written to the cache (\(cache))."
        case .noPair(let repo, let revision):
            return "The repo \(repo) at \(revision) has no GGUF language model and mmproj that lookd can pick."
        case .badListing(let url, let reason):
            return "\(url) did not answer with a file listing: \(reason)."
        case .tooLong(let url, let listed, let cache):
            return "\(url) sent more than the \(listed) bytes its listing gives; the download was stopped and deleted from the cache (\(cache))."
        case .checksum(let file, let expected, let got, let cache):
            return "\(file) did not match its sha256 (expected \(expected), got \(got)); it was deleted from the cache (\(cache)). Pull again."
        case .size(let file, let expected, let got, let cache):
            return "\(file) has \(got) bytes, not \(expected); it was deleted from the cache (\(cache)). Pull again."
        case .disk(let file, let reason):
            return "Could not write \(file): \(reason)."
        case .notShipped(let id):
            return
                "lookd's own model \"\(id)\" is not beside this lookd (models/\(id)/ in the repository, PREFIX/share/lookd/models/\(id)/ once installed); run tools/install, or set LOOKD_OWN_MODELS to the folder that holds \(id)/."
        case .damagedOwnModel(let file, let expected, let got):
            return
                "\(file) is not the file its SHA256SUMS names (expected \(expected), got \(got)); if it is a few hundred bytes, it is a Git LFS pointer: fetch the repository's files in full."
        }
    }
}
