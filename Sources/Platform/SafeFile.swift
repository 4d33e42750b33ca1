import Foundation

/// Writes a whole file at a path a user named, replacing nothing but a regular file:
/// - no file, or a regular file: written beside it (a new file, `O_CREAT|O_EXCL`) and renamed into
///   place, so a reader sees the old file or the new one, never half of one (an existing file keeps
///   its permissions);
/// - a symbolic link of the user's own (or root's, as `/dev/stdout` is): written through to what it
///   points at (the link stays a link); a link that another user owns is refused, as the kernel's
///   protected_symlinks refuses it in /tmp: it is how one user makes another's lookd write their files;
/// - a character device or a pipe (`/dev/null`, `/dev/stdout`, a FIFO): written into, as `cp` does;
/// - a folder, a block device or a socket: refused.
public enum SafeFile {
    public struct Failure: Error, CustomStringConvertible, Equatable {
        public let path: String
        public let reason: String
        public var description: String { "\(path) cannot be written: \(reason)" }
    }

    /// How a path will be written, decided from what is there now.
    public enum Plan: Equatable {
        /// Write a temporary file in the target's folder and rename it to `target` (the resolved path).
        case replace(target: String, mode: mode_t)
        /// Write into what is there (a device or a pipe).
        case into
    }

    /// What writing `path` would do, or why it cannot be written.
    public static func plan(_ path: String) throws(Failure) -> Plan {
        try checkLink(path)
        var st = stat()
        guard stat(path, &st) == 0 else {
            guard errno == ENOENT else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
            // Nothing there (or a link to nothing): create it where the link points.
            return .replace(target: danglingTarget(path), mode: 0o644)
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG:
            // A file lookd writes is its user's, with its mode: another user's file (one she made
            // first in a shared folder) is never replaced, nor its mode kept.
            if st.st_uid != geteuid() { throw Failure(path: path, reason: Self.notOwn(st.st_uid)) }
            let target =
                realpath(path, nil).map { p in
                    defer { free(p) }; return String(cString: p)
                } ?? path
            return .replace(target: target, mode: st.st_mode & 0o7777)
        case S_IFCHR, S_IFIFO: return .into
        case S_IFDIR: throw Failure(path: path, reason: "it is a folder")
        case S_IFBLK: throw Failure(path: path, reason: "it is a block device, not a regular file")
        default: throw Failure(path: path, reason: "it is not a regular file")
        }
    }

    /// Writes `bytes` to `path` whole (see the type's rules).
    public static func write(_ bytes: [UInt8], to path: String) throws(Failure) {
        switch try plan(path) {
        case .into:
            let fd = try openInto(path, flags: O_WRONLY)
            defer { close(fd) }
            if let reason = FileOutput.write(fd, bytes).reason { throw Failure(path: path, reason: reason) }
        case .replace(let target, let mode):
            try replace(target, with: bytes, mode: mode, named: path)
        }
    }

    public static func write(_ text: String, to path: String) throws(Failure) { try write(Array(text.utf8), to: path) }
    public static func write(_ data: Data, to path: String) throws(Failure) { try write([UInt8](data), to: path) }

    /// Moves a finished file at `temporary` (written beside `path`) into place under the same rules;
    /// a device or pipe gets its bytes. The temporary file is gone afterwards either way.
    public static func place(_ temporary: String, at path: String) throws(Failure) {
        defer { unlink(temporary) }
        switch try plan(path) {
        case .replace(let target, _):
            guard rename(temporary, target) == 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        case .into:
            guard let data = FileManager.default.contents(atPath: temporary) else {
                throw Failure(path: path, reason: "\(temporary) cannot be read back")
            }
            try write(data, to: path)
        }
    }

    /// Refuses `path` when a symbolic link on it (the file itself, a folder above it, or a link on
    /// the way to a link's target) is owned by neither this user nor root: `SafePath.check`.
    public static func checkLink(_ path: String) throws(Failure) { try SafePath.check(path) }

    /// Follows `path`'s symbolic links, at most 40; where they end
    /// (the path itself when it is no link), or nil when they go on past 40.
    private static func followLinks(_ path: String) -> String? {
        var current = path
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current, &st) == 0, st.st_mode & S_IFMT == S_IFLNK else { return current }
            guard let next = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { return current }
            current = next.hasPrefix("/") ? next : (FilePath.folder(of: current) as NSString).appendingPathComponent(next)
        }
        return nil
    }

    /// Opens `path` to append to it (creating it, mode 0644), under the same rules for links: for
    /// the event log, at the start and when SIGUSR1 reopens it after a rotation.
    public static func openForAppend(_ path: String) throws(Failure) -> Int32 {
        try checkLink(path)
        var st = stat()
        if stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR { throw Failure(path: path, reason: "it is a folder") }
        // A link already checked is followed; anything else opens the last component without following.
        var isLink = stat()
        let follow = lstat(path, &isLink) == 0 && isLink.st_mode & S_IFMT == S_IFLNK
        let fd = try openInto(path, flags: O_WRONLY | O_APPEND | O_CREAT | (follow ? 0 : O_NOFOLLOW))
        var opened = stat()
        if fstat(fd, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG, opened.st_uid != geteuid() {
            close(fd)
            throw Failure(path: path, reason: notOwn(opened.st_uid))
        }
        if fstat(fd, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG, opened.st_nlink > 1 {
            close(fd)
            throw Failure(
                path: path,
                reason: "it has \(opened.st_nlink) hard links, so appending to it would change another name's file; give lookd a file of its own")
        }
        return fd
    }

    /// Opens `path` without waiting on it: a pipe with no reader is given `readerWait` seconds for
    /// one to come (a reader started beside lookd), then refused, never waited on without end. Its
    /// writes are blocking again once it is open.
    static let readerWait = 2.0

    private static func openInto(_ path: String, flags: Int32) throws(Failure) -> Int32 {
        var fd = open(path, flags | O_NONBLOCK | O_CLOEXEC, 0o644)
        var waited = 0.0
        while fd < 0, errno == ENXIO, waited < readerWait {
            usleep(50_000)
            waited += 0.05
            fd = open(path, flags | O_NONBLOCK | O_CLOEXEC, 0o644)
        }
        guard fd >= 0 else {
            let reason = errno == ENXIO ? "it is a pipe that nothing reads" : String(cString: strerror(errno))
            throw Failure(path: path, reason: reason)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// A new file's name in `folder`, made there now (empty, `O_CREAT|O_EXCL`) so no other run takes
    /// it: `stem.ext`, else `stem-2.ext`, `stem-3.ext` … (two watches started in one second, with one
    /// record folder, keep both records).
    public static func claim(in folder: String, stem: String, ext: String) throws(Failure) -> String {
        try SafePath.check(folder)
        var n = 1
        while true {
            let name = n == 1 ? "\(stem).\(ext)" : "\(stem)-\(n).\(ext)"
            let path = (folder as NSString).appendingPathComponent(name)
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if fd >= 0 {
                close(fd)
                return path
            }
            guard errno == EEXIST, n < 10_000 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
            n += 1
        }
    }

    /// Why a file of another user's is not written, in words.
    static func notOwn(_ uid: uid_t) -> String {
        let name = getpwuid(uid).map { String(cString: $0.pointee.pw_name) } ?? "uid \(uid)"
        return "it belongs to another user (\(name)); lookd writes only files of its own user: give it a path of its own"
    }

    /// Checks that `path` may be written (before a long run, so a bad path is found at the start).
    public static func check(_ path: String) throws(Failure) { _ = try plan(path) }

    private static func replace(_ target: String, with bytes: [UInt8], mode: mode_t, named path: String) throws(Failure) {
        let folder = FilePath.folder(of: target)
        let name = (target as NSString).lastPathComponent
        var template = Array(((folder.isEmpty ? "." : folder) + "/." + name + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var failure: String? = FileOutput.write(fd, bytes).reason
        if failure == nil, fchmod(fd, mode) != 0 { failure = String(cString: strerror(errno)) }
        if close(fd) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if failure == nil, rename(temporary, target) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw Failure(path: path, reason: failure)
        }
    }

    /// Where a link that points at nothing leads (a path itself when it is no link).
    private static func danglingTarget(_ path: String) -> String { followLinks(path) ?? path }
}
