import Foundation

/// Reading a small file a user or another program may have swapped for a huge one (the status
/// file, the kept state): at most `limit` bytes are read, so memory stays bounded.
public enum BoundedRead {
    /// What reading gave.
    public enum Outcome: Equatable {
        case bytes(Data)
        /// Nothing there (or unreadable): the reason.
        case missing(String)
        /// Larger than the limit: its size so far.
        case tooLarge(Int)
    }

    /// The bytes of `path`, when it holds at most `limit` of them.
    public static func read(_ path: String, limit: Int) -> Outcome {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .missing(String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFDIR { return .missing("it is a folder") }
        var out = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while out.count <= limit {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, min($0.count, limit + 1 - out.count)) }
            if n < 0 {
                if errno == EINTR { continue }
                return .missing(String(cString: strerror(errno)))
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[..<n])
        }
        return out.count > limit ? .tooLarge(out.count) : .bytes(Data(out))
    }
}
