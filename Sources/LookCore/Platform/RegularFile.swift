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
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var got = 0
        while got < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + got, $0.count - got) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            got += n
        }
        return Array(bytes.prefix(got))
    }
}
