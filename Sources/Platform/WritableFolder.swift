import Foundation

/// A folder something will be written into, made when missing and proved writable (a file is made
/// in it and removed), so a folder that cannot take what is written is found at the start.
public enum WritableFolder {
    /// Nil when `dir` can be written; else why not, as the end of a sentence about `what`. With
    /// `create` false, a folder that is not there is refused, not made (a report's folder, as the
    /// other outputs' are: a typo in a path makes no folder of its own).
    public static func problem(_ dir: String, what: String, create: Bool = true) -> String? {
        if let problem = SafePath.problem(dir, what: what) { return problem }
        var isDir: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: dir, isDirectory: &isDir)
        if exists, !isDir.boolValue {
            return "The \(what) \(dir) cannot be used: it is a file, not a folder."
        }
        if !exists && !create { return "The \(what) \(dir) does not exist; make it first." }
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            return "The \(what) \(dir) cannot be made: \(error.localizedDescription)"
        }
        var template = Array((dir + "/.lookd-probe.XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return "The \(what) \(dir) cannot be written: \(String(cString: strerror(errno)))." }
        close(fd)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return nil
    }
}
