import Foundation

/// Reading a file that must be a regular file and nothing else: opened without following a link
/// (`O_NOFOLLOW`), checked with `fstat` on what was opened, read whole up to a bound.
public enum RegularFile {
    /// The file's bytes; nil when it is missing, a link, not a regular file, or over `limit` bytes.
    public static func read(_ path: String, limit: Int) -> [UInt8]? {
        let fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size <= limit else { return nil }
        return try? SmallInput.readToEnd(fd, limit: limit).get()
    }

    /// The file's bytes when it is also this user's own (a cache's file: one another user made, or
    /// linked, is never trusted); nil otherwise, as `read`.
    public static func readOwn(_ path: String, limit: Int) -> [UInt8]? {
        guard isOwn(path) else { return nil }
        return read(path, limit: limit)
    }

    /// Why a file that a library opens by path to write (SQLite's history and its journal) may not
    /// be written: it is there and is not a regular file of this user's (reached through no link of
    /// another user's). nil when it may: missing, or this user's own.
    public static func refusal(toWrite path: String) -> String? {
        do throws(SafeFile.Failure) {
            if case .into = try SafeFile.plan(path) { return "it is not a regular file" }
            return nil
        } catch {
            return error.reason
        }
    }

    /// Whether `path` is a regular file (not a link) of this user's, of `size` bytes when given.
    public static func isOwn(_ path: String, size: Int64? = nil) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFREG && st.st_uid == geteuid() && size.map { Int64(st.st_size) == $0 } ?? true
    }
}

/// Reading a small input whole: a file, or a pipe (`lookd check <(…)`, `--rules /dev/stdin`), up to
/// a bound; what stops it is said in words. Nothing here waits without end: the open never waits
/// for a writer (a FIFO with none reads as empty), and a pipe or device that gives nothing for
/// `silence` seconds is given up on (a reload reads no pipe at all: `WatchConfig.loadRules`).
public enum SmallInput {
    public static let silence = 30.0

    public static func read(_ path: String, limit: Int) -> Result<[UInt8], SafeFile.Failure> {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .failure(SafeFile.Failure(path: path, reason: String(cString: strerror(errno)))) }
        defer { Glibc.close(fd) }
        var st = stat()
        if fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFDIR { return .failure(SafeFile.Failure(path: path, reason: "it is a folder")) }
        if st.st_mode & S_IFMT == S_IFREG { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
        return readToEnd(fd, limit: limit).mapError { SafeFile.Failure(path: path, reason: $0.reason) }
    }

    /// Why a read stopped before its end.
    public struct Stopped: Error {
        public let reason: String
    }

    /// Everything `fd` gives until its end, at most `limit` bytes; a non-blocking `fd` is waited on
    /// at most `silence` seconds between two reads.
    static func readToEnd(_ fd: Int32, limit: Int) -> Result<[UInt8], Stopped> {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EAGAIN {
                var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&ready, 1, Int32(silence * 1000)) == 0 {
                    return .failure(Stopped(reason: "it is a pipe or device that gave nothing for \(Int(silence)) s"))
                }
                continue
            }
            if n < 0 { return .failure(Stopped(reason: String(cString: strerror(errno)))) }
            if n == 0 { return .success(bytes) }
            bytes += chunk[0..<n]
            if bytes.count > limit { return .failure(Stopped(reason: "it is over \(limit >> 10) KB")) }
        }
    }
}
