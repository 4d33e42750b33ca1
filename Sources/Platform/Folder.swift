import Foundation

/// A folder lookd writes into, opened once (`O_DIRECTORY|O_NOFOLLOW`) and written relative to that
/// descriptor (`openat`, `unlinkat`, `fstatat`): a folder swapped for a link after it was opened (by
/// another user who owns it, say, pointing it at a root-only folder) cannot redirect a write. A link
/// on the way to it is checked as every written path's is (`SafePath`).
public final class Folder: @unchecked Sendable {
    public let path: String
    private let fd: Int32

    public struct Failure: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "\(path) cannot be written: \(reason)" }
        public init(path: String, reason: String) { (self.path, self.reason) = (path, reason) }
    }

    /// Opens `path`, which must be a folder (not a link to one).
    public init(_ path: String) throws(Failure) {
        self.path = path
        do { try SafePath.check(path) } catch { throw Failure(path: path, reason: error.reason) }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            throw Failure(
                path: path,
                reason: errno == ELOOP || errno == ENOTDIR ? "it is not a folder (a link is not followed)" : String(cString: strerror(errno)))
        }
        self.fd = fd
    }

    /// Opens the folder that the file at `path` goes in (the working folder for a bare name).
    public convenience init(folder path: String) throws(Failure) {
        let dir = FilePath.folder(of: path)
        try self.init(dir.isEmpty ? "." : dir)
    }

    deinit { close(fd) }

    /// The path a name in it is shown as.
    public func path(of name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// A new file's name in it, made now (`stem.ext`, else `stem-2.ext` …, never an existing one, never
    /// through a link), and written whole with `bytes`.
    public func create(stem: String, ext: String, bytes: [UInt8]) throws(Failure) -> String {
        for n in 1...10_000 {
            let name = n == 1 ? "\(stem).\(ext)" : "\(stem)-\(n).\(ext)"
            let file = openat(fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if file < 0 {
                if errno == EEXIST { continue }
                throw Failure(path: path(of: name), reason: String(cString: strerror(errno)))
            }
            let reason = FileOutput.write(file, bytes).reason
            close(file)
            if let reason {
                unlinkat(fd, name, 0)
                throw Failure(path: path(of: name), reason: reason)
            }
            return name
        }
        throw Failure(path: path(of: "\(stem).\(ext)"), reason: "10000 files of that name are there")
    }

    /// Writes `bytes` as `name`, in place of a regular file of that name (never through a link).
    public func replace(_ name: String, bytes: [UInt8]) throws(Failure) {
        let temporary = partialName(for: name)
        let file = openat(fd, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw Failure(path: path(of: name), reason: String(cString: strerror(errno))) }
        let reason = FileOutput.write(file, bytes).reason
        close(file)
        if let reason {
            remove(temporary)
            throw Failure(path: path(of: name), reason: reason)
        }
        try place(temporary, as: name)
    }

    /// The regular files in it, with their modification times.
    public func files() -> [(name: String, modified: Date)] {
        let copy = dup(fd)
        guard copy >= 0, let dir = fdopendir(copy) else { return [] }
        defer { closedir(dir) }
        rewinddir(dir)
        var found: [(String, Date)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            var st = stat()
            guard name != ".", name != "..", fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
            found.append((name, Date(timeIntervalSince1970: Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9)))
        }
        return found
    }

    /// Removes the file `name` from it.
    public func remove(_ name: String) { unlinkat(fd, name, 0) }

    /// A hidden name, not there now, for a file written in it under `name` before it is put in place.
    public func partialName(for name: String) -> String {
        while true {
            let partial = ".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).part"
            var st = stat()
            if fstatat(fd, partial, &st, AT_SYMLINK_NOFOLLOW) != 0 { return partial }
        }
    }

    /// `name` in it as a path that goes through its descriptor (`/proc/self/fd/N/name`), for a C
    /// library that opens files by path (FFmpeg's muxers): a swap of the folder after it was opened
    /// cannot redirect what is written there.
    public func pathThroughDescriptor(of name: String) -> String { "/proc/self/fd/\(fd)/\(name)" }

    /// The size of the regular file `name` in it (nil when it is not one).
    public func size(of name: String) -> Int? {
        var st = stat()
        guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(st.st_size)
    }

    /// Puts the regular file `temporary` in place as `name` (`renameat`: a link of that name is
    /// replaced, never followed); `temporary` is gone either way.
    public func place(_ temporary: String, as name: String) throws(Failure) {
        guard size(of: temporary) != nil else {
            remove(temporary)
            throw Failure(path: path(of: name), reason: "what was written is not a regular file")
        }
        guard renameat(fd, temporary, fd, name) == 0 else {
            let reason = errno == EISDIR ? "it is a folder" : String(cString: strerror(errno))
            remove(temporary)
            throw Failure(path: path(of: name), reason: reason)
        }
    }
}
