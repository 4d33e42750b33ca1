import Foundation
import HTTP
import LookCore
import Platform

/// Fetches a Hub listing and downloads files into the cache: into `NAME.part`, resumed with HTTP
/// Range after an interruption, checked for size and sha256, and moved into place only when whole.
/// A lock file keeps two pulls of the same file from colliding.
public final class Downloader: @unchecked Sendable {
    public struct Progress: Sendable {
        public var file: String
        public var bytes: Int64
        public var total: Int64?
        public var bytesPerSecond: Double

        public init(file: String, bytes: Int64, total: Int64?, bytesPerSecond: Double) {
            self.file = file
            self.bytes = bytes
            self.total = total
            self.bytesPerSecond = bytesPerSecond
        }
    }

    public let endpoint: String
    let token: String?
    let progress: @Sendable (Progress) -> Void
    let attempts: Int

    /// Seconds a server may send nothing (before its answer, or between bytes) before lookd gives up.
    public let idleTimeout: Double
    /// The clock the transfers' rates and the waits between tries are read on.
    let clock: any Clock
    /// The most bytes a listing may have (a real one is a few KB): an endless one is cut off.
    public static let listingLimit = 8 << 20

    public init(
        endpoint: String, token: String? = nil, attempts: Int = 4, idleTimeout: Double = 30,
        clock: any Clock, progress: @escaping @Sendable (Progress) -> Void = { _ in }
    ) {
        self.clock = clock
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        self.token = token
        self.attempts = attempts
        self.idleTimeout = idleTimeout
        self.progress = progress
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
        let lock = FileLock(path: FilePath.folder(of: destination) + "/.\(name).lock")
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
                clock.sleep(0.2)
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

    /// A GET of `url` through libcurl: no limit on the whole (a model is gigabytes), `idleTimeout`
    /// for the connection and for each silence, redirects followed (the Hub sends files from its CDN).
    private func request(_ url: String, headers: [(String, String)]) -> HTTPRequest {
        let auth = token.map { [("Authorization", "Bearer \($0)")] } ?? []
        var request = HTTPRequest(
            url: url, headers: headers + auth, connectLimit: idleTimeout, timeLimit: 0, idleLimit: idleTimeout, followRedirects: true)
        // A head that goes on is no idle server: it is bounded by the same time.
        request.headLimit = idleTimeout
        return request
    }

    /// One attempt: resumes from what `part` holds.
    private func transfer(_ url: String, to part: String, name: String, size: Int?, cache: String) throws(PullError) {
        let have = Int64(fileSize(part) ?? 0)
        let sink = DownloadSink(part: part, resumeFrom: have, limit: size.map(Int64.init), name: name, clock: clock, progress: progress)
        let answer = request(url, headers: have > 0 ? [("Range", "bytes=\(have)-")] : []).send(head: sink.head, received: sink.write)
        sink.close()
        let status = sink.status ?? answer.status
        if status == 416, have > 0 { return } // the part was already whole
        if let limit = size, sink.overLimit {
            try? FileManager.default.removeItem(atPath: part)
            throw .tooLong(url: url, listed: limit, cache: cache)
        }
        if let failure = sink.writeFailure {
            throw .disk(file: part, reason: "\(failure); free some space and pull again: the download resumes from what is there")
        }
        if let failure = answer.failure, failure != .cut {
            throw .unreachable(url: url, reason: Self.describe(failure, idleTimeout: idleTimeout), cache: cache)
        }
        guard status == 200 || status == 206 else { throw .http(url: url, status: status, cache: cache) }
        if let expected = sink.expected, sink.written < expected {
            throw .unreachable(url: url, reason: "the connection ended after \(sink.written) of \(expected) bytes", cache: cache)
        }
    }

    /// A small answer (a listing) in memory, at most `limit` bytes: a server that sends without end
    /// is cut off instead of filling memory.
    private func fetch(_ url: String, cache: String, limit: Int) throws(PullError) -> (Data, Int) {
        var data = Data()
        var overLimit = false
        let answer = request(url, headers: []).send(
            head: { head in
                overLimit = (head.length ?? 0) > Int64(limit)
                return !overLimit
            },
            received: { bytes in
                data.append(contentsOf: bytes)
                overLimit = data.count > limit
                return !overLimit
            })
        if overLimit { throw .badListing(url: url, reason: "it is over \(limit >> 20) MB, far more than a listing") }
        if let failure = answer.failure, failure != .cut {
            throw .unreachable(url: url, reason: Self.describe(failure, idleTimeout: idleTimeout), cache: cache)
        }
        return (data, answer.status)
    }

    /// A network failure in words.
    static func describe(_ failure: HTTPRequest.Failure, idleTimeout: Double) -> String {
        switch failure {
        case .timedOut: return "the server sent nothing for \(Int(idleTimeout)) s"
        case .noHost: return "the server's name cannot be found"
        case .refused: return "the server refused the connection"
        case .lost: return "the connection was lost"
        case .secure(let detail): return "the secure connection failed (\(detail))"
        case .cut: return "the exchange was cut short"
        case .other(let detail): return detail
        }
    }
}
