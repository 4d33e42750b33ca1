import Foundation

/// Writing to a file descriptor without ending the process: Foundation's `FileHandle.write` traps on
/// ENOSPC, EFBIG or EPIPE; this returns the error instead.
public enum FileOutput {
    /// What a write did: how many bytes went out, and the errno that stopped it (nil: all of them).
    public struct Result: Equatable, Sendable {
        public var written: Int
        public var error: Int32?
        public var reason: String? { error.map { String(cString: strerror($0)) } }
    }

    /// Writes all of `bytes` to `fd`, going on after short writes and EINTR.
    public static func write(_ fd: Int32, _ bytes: [UInt8]) -> Result {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                return Result(written: done, error: errno)
            }
            if n == 0 { return Result(written: done, error: EIO) }
            done += n
        }
        return Result(written: done, error: nil)
    }

    public static func write(_ fd: Int32, _ text: String) -> Result { write(fd, Array(text.utf8)) }
}
