import Foundation

/// The one check every writer makes before it creates or writes anything under a path: each
/// component on the way, the folders above as well as the file itself, is a real file or folder, or
/// a symbolic link that this user or root owns (followed, and its target's components checked the
/// same way). A link another user owns anywhere on the path is how they would make this user's lookd
/// write into their folder, so it is refused, as the kernel's protected_symlinks refuses such a link
/// in a sticky folder. Components that are not there yet end the walk: lookd makes them as folders.
public enum SafePath {
    /// Refuses `path` with a sentence that names the component at fault.
    public static func check(_ path: String) throws(SafeFile.Failure) {
        var pending = components(absolute(path))
        var resolved = ""
        var hops = 0
        while !pending.isEmpty {
            let name = pending.removeFirst()
            if name == "." { continue }
            if name == ".." {
                resolved = FilePath.folder(of: resolved)
                if resolved == "/" { resolved = "" }
                continue
            }
            let next = resolved + "/" + name
            var st = stat()
            guard lstat(next, &st) == 0 else { return } // not there yet (or unreadable): nothing to follow
            guard st.st_mode & S_IFMT == S_IFLNK else {
                resolved = next
                continue
            }
            guard st.st_uid == geteuid() || st.st_uid == 0 else {
                let whose = "is a symbolic link owned by another user (uid \(st.st_uid))"
                let reason = next == absolute(path) ? "it \(whose)" : "\(next) on its path \(whose)"
                throw SafeFile.Failure(path: path, reason: reason + "; lookd writes through no one else's link")
            }
            hops += 1
            guard hops <= 40, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: next) else {
                throw SafeFile.Failure(path: path, reason: "its symbolic links go round in a loop")
            }
            pending = components(target) + pending
            if target.hasPrefix("/") { resolved = "" }
        }
    }

    /// The same check, as the end of a sentence about `what` (nil when the path is fine).
    public static func problem(_ path: String, what: String) -> String? {
        do throws(SafeFile.Failure) {
            try check(path)
            return nil
        } catch {
            return "The \(what) \(path) cannot be used: \(error.reason)."
        }
    }

    /// `path` from the root (the current folder put before a relative one).
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
    }

    private static func components(_ path: String) -> [String] { path.split(separator: "/").map(String.init) }
}
