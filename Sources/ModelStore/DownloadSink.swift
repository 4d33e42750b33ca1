import Foundation
import LookCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Receives one HTTP response into a `.part` file: appended after a 206 (the Range was honoured),
/// started over after a 200.
final class DownloadSink: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    private(set) var status: Int?
    private(set) var error: Error?
    private(set) var writeFailure: String?
    /// Bytes the whole file has (when the server said).
    private(set) var expected: Int64?
    private(set) var written: Int64
    /// The file's listed size: a server that sends more is cut off (`overLimit`).
    private let limit: Int64?
    private(set) var overLimit = false
    private let part: String
    private let name: String
    private let progress: @Sendable (Downloader.Progress) -> Void
    private var handle: FileHandle?
    private var started = Date()
    private var lastReport = Date.distantPast
    private let resumeFrom: Int64

    init(part: String, resumeFrom: Int64, limit: Int64?, name: String, progress: @escaping @Sendable (Downloader.Progress) -> Void) {
        self.part = part
        self.limit = limit
        self.resumeFrom = resumeFrom
        self.written = resumeFrom
        self.name = name
        self.progress = progress
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        status = http?.statusCode
        guard status == 200 || status == 206 else { completionHandler(.cancel); return }
        if status == 200 { written = 0 } // the server sends it all: start over
        let length = response.expectedContentLength
        expected = length > 0 ? written + length : nil
        if let limit, let expected, expected > limit {
            overLimit = true
            completionHandler(.cancel)
            return
        }
        if !FileManager.default.fileExists(atPath: part) || status == 200 {
            _ = FileManager.default.createFile(atPath: part, contents: nil) // a failure shows as no handle below
        }
        handle = FileHandle(forWritingAtPath: part)
        if status == 200 { handle?.truncateFile(atOffset: 0) } else { handle?.seekToEndOfFile() }
        started = Date()
        completionHandler(handle == nil ? .cancel : .allow)
        if handle == nil { writeFailure = "it cannot be opened for writing" }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let handle, writeFailure == nil, !overLimit else { return }
        if let limit, written + Int64(data.count) > limit {
            overLimit = true
            dataTask.cancel()
            return
        }
        do {
            try handle.write(contentsOf: data)
        } catch {
            writeFailure = error.localizedDescription
            dataTask.cancel()
            return
        }
        written += Int64(data.count)
        let now = Date()
        if now.timeIntervalSince(lastReport) >= 0.2 || written == expected {
            lastReport = now
            let elapsed = max(now.timeIntervalSince(started), 1e-3)
            progress(
                Downloader.Progress(
                    file: name, bytes: written, total: expected,
                    bytesPerSecond: Double(written - resumeFrom) / elapsed))
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        try? handle?.close()
        if let error, writeFailure == nil, !overLimit, status == 200 || status == 206 || status == nil {
            self.error = error
        }
        done.signal()
    }
}

/// An exclusive lock on a file (flock), held while one pull writes a file.
final class FileLock {
    let path: String
    private var fd: Int32 = -1

    init(path: String) { self.path = path }

    /// Waits for the lock; false when the lock file cannot be made.
    func acquire() -> Bool {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            StandardStream.error.write("lookd: another pull is writing \(path); waiting for it…\n")
            flock(fd, LOCK_EX)
        }
        return true
    }

    func release() {
        guard fd >= 0 else { return }
        flock(fd, LOCK_UN)
        close(fd)
        fd = -1
    }
}
