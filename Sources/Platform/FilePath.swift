/// Paths as text, where Foundation's own helpers cannot be trusted: Swift 6.3's
/// `NSString.deletingLastPathComponent` traps on a path of one relative name (`--record r`,
/// `--log events.jsonl`), so lookd takes a path's folder here.
public enum FilePath {
    /// The folder part of `path`: "" for "name", "/" for "/name", "a" for "a/b" and for "a/b/".
    public static func folder(of path: String) -> String {
        var name = Substring(path)
        while name.count > 1, name.hasSuffix("/") { name = name.dropLast() }
        guard let slash = name.lastIndex(of: "/") else { return "" }
        guard slash != name.startIndex else { return "/" }
        var head = name[..<slash]
        while head.count > 1, head.hasSuffix("/") { head = head.dropLast() }
        return String(head)
    }
}
