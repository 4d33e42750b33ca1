import Foundation
import LookCore

/// The lock that makes a state file one watch's own (`flock` on `<state>.lock` beside it, held for
/// the run): a second watch given the same state would lose the first one's counts, so it is refused
/// with the holder's process id. The lock goes with the process, however it ends.
public final class StateLock {
    private let fd: Int32
    public let path: String

    /// Why the lock cannot be had, in a sentence.
    public struct Held: Error, CustomStringConvertible {
        public let description: String
    }

    public init(state: String) throws(Held) {
        path = state + ".lock"
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw Held(description: "The state's lock \(path) cannot be opened: \(String(cString: strerror(errno))).") }
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
        _ = ftruncate(fd, 0)
        _ = FileOutput.write(fd, "\(getpid())\n")
    }

    deinit { close(fd) }
}
