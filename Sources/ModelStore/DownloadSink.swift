import Foundation
import HTTP
import LookCore
import Platform

/// Receives one HTTP answer into a `.part` file: appended after a 206 (the Range was honoured),
/// started over after a 200; cut off past the file's listed size.
final class DownloadSink {
    private(set) var status: Int?
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
    private let clock: any Clock
    private var started = 0.0
    private var lastReport = -Double.infinity
    private let resumeFrom: Int64

    init(
        part: String, resumeFrom: Int64, limit: Int64?, name: String, clock: any Clock,
        progress: @escaping @Sendable (Downloader.Progress) -> Void
    ) {
        self.clock = clock
        self.part = part
        self.limit = limit
        self.resumeFrom = resumeFrom
        self.written = resumeFrom
        self.name = name
        self.progress = progress
    }

    /// The answer's status and length: false takes none of its bytes.
    func head(_ head: HTTPRequest.Head) -> Bool {
        status = head.status
        guard head.status == 200 || head.status == 206 else { return false }
        if head.status == 200 { written = 0 } // the server sends it all: start over
        expected = head.length.map { written + $0 }
        if let limit, let expected, expected > limit {
            overLimit = true
            return false
        }
        if !FileManager.default.fileExists(atPath: part) || head.status == 200 {
            _ = FileManager.default.createFile(atPath: part, contents: nil) // a failure shows as no handle below
        }
        handle = FileHandle(forWritingAtPath: part)
        if head.status == 200 { handle?.truncateFile(atOffset: 0) } else { handle?.seekToEndOfFile() }
        started = clock.now()
        if handle == nil { writeFailure = "it cannot be opened for writing" }
        return handle != nil
    }

    /// Appends bytes; false ends the exchange (past the limit, or a write that failed).
    func write(_ bytes: [UInt8]) -> Bool {
        guard let handle, writeFailure == nil, !overLimit else { return false }
        if let limit, written + Int64(bytes.count) > limit {
            overLimit = true
            return false
        }
        do {
            try handle.write(contentsOf: Data(bytes))
        } catch {
            writeFailure = error.localizedDescription
            return false
        }
        written += Int64(bytes.count)
        let now = clock.now()
        if now - lastReport >= 0.2 || written == expected {
            lastReport = now
            let elapsed = max(now - started, 1e-3)
            progress(Downloader.Progress(file: name, bytes: written, total: expected, bytesPerSecond: Double(written - resumeFrom) / elapsed))
        }
        return true
    }

    func close() { try? handle?.close() }
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
