import Foundation
import LookCore
import Platform

/// The lock that makes a state file one watch's own (`flock` on `<state>.lock` beside it, held for
/// the run): a second watch given the same state would lose the first one's counts, so it is refused
/// with the holder's process id. The lock goes with the process, however it ends.
public final class StateLock: @unchecked Sendable {
    private var fd: Int32
    private let lock = NSLock()
    public let path: String

    /// Why the lock cannot be had, in a sentence.
    public struct Held: Error, CustomStringConvertible {
        public let description: String
    }

    public init(state: String) throws(Held) {
        path = state + ".lock"
        do throws(SafeFile.Failure) { try SafePath.check(path) } catch { throw Held(description: "The state's lock \(error.description).") }
        // Never truncated nor written before it is known to be lookd's own: one name, a regular file.
        // (Kept in a local until the lock is had: a refusal must not run deinit, which removes the file.)
        let fd = open(path, O_RDWR | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw Held(description: "The state's lock \(path) cannot be opened: \(String(cString: strerror(errno))).") }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_nlink == 1 else {
            close(fd)
            let what = st.st_mode & S_IFMT == S_IFREG ? "it has \(st.st_nlink) hard links" : "it is not a regular file"
            throw Held(description: "The state's lock \(path) cannot be used: \(what); remove it, and lookd makes its own.")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var bytes = [UInt8](repeating: 0, count: 32)
            let n = read(fd, &bytes, bytes.count)
            let holder = n > 0 ? String(decoding: bytes[..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : "?"
            close(fd)
            throw Held(
                description:
                    "Another lookd (pid \(holder)) keeps its switches and counts in \(state); give this watch its own \(SettingName.state) FILE (or \(SettingName.state) off)."
            )
        }
        // A lock a stopping watch removed just after this one opened it is no lock: the name must
        // still lead to the file held.
        var now = stat()
        guard stat(path, &now) == 0, now.st_ino == st.st_ino, now.st_dev == st.st_dev else {
            close(fd)
            throw Held(description: "Another lookd was just using \(state); start this watch again once it has stopped.")
        }
        _ = ftruncate(fd, 0)
        _ = FileOutput.write(fd, "\(getpid())\n")
        self.fd = fd
    }

    /// Removes the lock file while it is still held (no other watch can have it then), so a run
    /// leaves only its state behind; once (the run's end calls it, as the process may end without
    /// this object's deinit).
    public func release() {
        lock.withLock {
            guard fd >= 0 else { return }
            unlink(path)
            close(fd)
            fd = -1
        }
    }

    deinit { release() }
}
