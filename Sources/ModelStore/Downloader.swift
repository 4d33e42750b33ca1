import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fetches a Hub listing and downloads files into the cache: into `NAME.part`, resumed with HTTP
/// Range after an interruption, checked for size and sha256, and moved into place only when whole.
/// A lock file keeps two pulls of the same file from colliding.
public final class Downloader: @unchecked Sendable {
    public struct Progress: Sendable {
        public var file: String
        public var bytes: Int64
        public var total: Int64?
        public var bytesPerSecond: Double
    }

    public let endpoint: String
    let token: String?
    let progress: @Sendable (Progress) -> Void
    let attempts: Int
    private let session: URLSession

    /// Seconds a server may send nothing (before its answer, or between bytes) before lookd gives up.
    public let idleTimeout: Double
    /// The most bytes a listing may have (a real one is a few KB): an endless one is cut off.
    public static let listingLimit = 8 << 20

    public init(
        endpoint: String, token: String? = nil, attempts: Int = 4, idleTimeout: Double = 30,
        progress: @escaping @Sendable (Progress) -> Void = { _ in }
    ) {
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        self.token = token
        self.attempts = attempts
        self.idleTimeout = idleTimeout
        self.progress = progress
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = idleTimeout
        session = URLSession(configuration: config)
    }

    /// The repo's files at `revision`.
    func listing(repo: String, revision: String, cache: String) throws(PullError) -> [HubFile] {
        let url = "\(endpoint)/api/models/\(repo)/tree/\(revision)"
        let (data, status) = try fetch(url, cache: cache, limit: Self.listingLimit)
        guard status == 200 else { throw .http(url: url, status: status, cache: cache) }
        guard let files = try? JSONDecoder().decode([HubFile].self, from: data) else {
            throw .badListing(url: url, reason: "it is not the Hub's JSON list of files")
        }
        return files
    }

    func fileURL(repo: String, revision: String, path: String) -> String {
        "\(endpoint)/\(repo)/resolve/\(revision)/\(path)"
    }

    /// Downloads `url` to `destination` unless it is there already with the right size.
    func download(_ url: String, to destination: String, size: Int?, sha256: String?, cache: String) throws(PullError) {
        let name = (destination as NSString).lastPathComponent
        let lock = FileLock(path: (destination as NSString).deletingLastPathComponent + "/.\(name).lock")
        guard lock.acquire() else { throw .disk(file: destination, reason: "its lock file cannot be made") }
        defer { lock.release() }
        if let size, fileSize(destination) == size { return } // another pull finished it meanwhile
        let part = destination + ".part"
        var lastError: PullError?
        for _ in 0..<attempts {
            do {
                try transfer(url, to: part, name: name, size: size, cache: cache)
                lastError = nil
                break
            } catch {
                lastError = error
                if case .http = error { break }
                if case .disk = error { break }
                usleep(200_000)
            }
        }
        if let lastError { throw lastError }
        let got = fileSize(part) ?? 0
        if let size, got != size {
            try? FileManager.default.removeItem(atPath: part)
            throw .size(file: destination, expected: size, got: got, cache: cache)
        }
        if let sha256 {
            let actual = SHA256.hex(ofFile: part) ?? "unreadable"
            guard actual == sha256.lowercased() else {
                try? FileManager.default.removeItem(atPath: part)
                throw .checksum(file: destination, expected: sha256, got: actual, cache: cache)
            }
        }
        do {
            if FileManager.default.fileExists(atPath: destination) { try FileManager.default.removeItem(atPath: destination) }
            try FileManager.default.moveItem(atPath: part, toPath: destination)
        } catch {
            throw .disk(file: destination, reason: error.localizedDescription)
        }
    }

    private func fileSize(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    }

    /// One attempt: resumes from what `part` holds.
    private func transfer(_ url: String, to part: String, name: String, size: Int?, cache: String) throws(PullError) {
        guard let target = URL(string: url) else { throw .badListing(url: url, reason: "it is not a URL") }
        let have = Int64(fileSize(part) ?? 0)
        var request = URLRequest(url: target)
        if have > 0 { request.setValue("bytes=\(have)-", forHTTPHeaderField: "Range") }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let sink = DownloadSink(part: part, resumeFrom: have, limit: size.map(Int64.init), name: name, progress: progress)
        let delegateSession = URLSession(configuration: session.configuration, delegate: sink, delegateQueue: nil)
        let delegateTask = delegateSession.dataTask(with: request)
        delegateTask.resume()
        sink.done.wait()
        delegateSession.finishTasksAndInvalidate()
        if let status = sink.status, status == 416, have > 0 { return } // the part was already whole
        if let limit = size, sink.overLimit {
            try? FileManager.default.removeItem(atPath: part)
            throw .tooLong(url: url, listed: limit, cache: cache)
        }
        if let failure = sink.writeFailure {
            throw .disk(file: part, reason: "\(failure); free some space and pull again: the download resumes from what is there")
        }
        if let error = sink.error { throw .unreachable(url: url, reason: Self.describe(error, idleTimeout: idleTimeout), cache: cache) }
        guard let status = sink.status, status == 200 || status == 206 else {
            throw .http(url: url, status: sink.status ?? 0, cache: cache)
        }
        if let expected = sink.expected, sink.written < expected {
            throw .unreachable(url: url, reason: "the connection ended after \(sink.written) of \(expected) bytes", cache: cache)
        }
    }

    private func fetch(_ url: String, cache: String, limit: Int) throws(PullError) -> (Data, Int) {
        guard let target = URL(string: url) else { throw .badListing(url: url, reason: "it is not a URL") }
        var request = URLRequest(url: target)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let fetch = BoundedFetch(limit: limit)
        let delegateSession = URLSession(configuration: session.configuration, delegate: fetch, delegateQueue: nil)
        delegateSession.dataTask(with: request).resume()
        fetch.done.wait()
        delegateSession.finishTasksAndInvalidate()
        if fetch.overLimit { throw .badListing(url: url, reason: "it is over \(limit >> 20) MB, far more than a listing") }
        if let error = fetch.error { throw .unreachable(url: url, reason: Self.describe(error, idleTimeout: idleTimeout), cache: cache) }
        return (fetch.data, fetch.status ?? 0)
    }
}
