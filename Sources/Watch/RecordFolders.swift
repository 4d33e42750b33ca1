import Foundation
import LookCore

/// The folders a watch writes into, made and proved writable before the run, so a folder that
/// cannot take the records is found at the start, not at the end.
enum RecordFolders {
    static func make(_ config: WatchConfig) throws(WatchError) {
        try writable(config.recordDir, what: "record folder")
        if let frames = config.framesDir { try writable(frames, what: "frames folder") }
        if let effects = config.effectsDir { try writable(effects, what: "effects folder") }
        if let snapshots = config.snapshotsDir { try writable(snapshots, what: "snapshots folder") }
    }

    /// Makes `dir` when it is missing and proves a file can be made in it.
    private static func writable(_ dir: String, what: String) throws(WatchError) {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), !isDir.boolValue {
            throw .record("The \(what) \(dir) cannot be used: it is a file, not a folder.")
        }
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            throw .record("The \(what) \(dir) cannot be made: \(error.localizedDescription)")
        }
        var template = Array((dir + "/.lookd-probe.XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw .record("The \(what) \(dir) cannot be written: \(String(cString: strerror(errno))).") }
        close(fd)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    }
}
