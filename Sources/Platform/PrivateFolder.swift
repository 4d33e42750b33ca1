import Foundation

/// A folder only this user can use, for files at a predictable path in a place every user can
/// write (`/tmp/lookd-<uid>`): made with mode 0700, or, when it is there already, checked to be a
/// real folder (no link) that this user owns and no one else may write. Another user's folder at
/// that path is how they would make this user's lookd write where they choose.
public enum PrivateFolder {
    /// Makes or checks `path`; the reason it cannot be used, or nil. `otherwise` says what the user
    /// may give instead (`--status FILE`), for the message.
    public static func problem(_ path: String, otherwise: String? = nil) -> String? {
        do throws(SafeFile.Failure) { try SafePath.check(FilePath.folder(of: path)) } catch {
            return "\(path) cannot be made: \(error.reason)"
        }
        if mkdir(path, 0o700) == 0 { return nil }
        guard errno == EEXIST else { return "\(path) cannot be made: \(String(cString: strerror(errno)))" }
        return notOwn(path, otherwise: otherwise)
    }

    /// Why `path`, which is there, is not this user's own private folder; nil when it is. For what
    /// lookd reads from such a folder (`lookd status`): a file another user put there is not trusted.
    public static func notOwn(_ path: String, otherwise: String? = nil) -> String? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return "\(path) cannot be read: \(String(cString: strerror(errno)))" }
        guard st.st_mode & S_IFMT == S_IFDIR else { return "\(path) is not a folder (a link or a file is there); remove it" }
        guard st.st_uid == geteuid() else {
            return "\(path) belongs to another user (uid \(st.st_uid)); remove it\(otherwise.map { ", or give \($0)" } ?? "")"
        }
        guard st.st_mode & 0o022 == 0 else {
            return "\(path) may be written by other users (mode \(String(st.st_mode & 0o777, radix: 8))); make it 0700"
        }
        return nil
    }
}
