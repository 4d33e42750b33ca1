import Foundation
import LookCore
import Media
import Platform

/// Finds the sound each name plays: `chime`, `glass` and `bell` from the freedesktop sound theme
/// when it is installed, else lookd's own; the effect sounds `water`, `horn` and `bells` from
/// lookd's own Sounds folder. A sound whose file is missing plays the chime, marked as a fallback.
public final class SoundLibrary: @unchecked Sendable {
    /// Where a clip came from.
    public enum Origin: String, Sendable { case theme, lookd, fallback }

    public let themeFolder: String
    public let ownFolder: String?
    private let lock = NSLock()
    private var cache: [String: (AudioClip, Origin)] = [:]

    static let themeFiles = ["chime": "complete.oga", "glass": "message-new-instant.oga", "bell": "bell.oga"]

    public init(themeFolder: String = "/usr/share/sounds/freedesktop/stereo", ownFolder: String? = SoundLibrary.findOwnFolder()) {
        self.themeFolder = themeFolder
        self.ownFolder = ownFolder
    }

    /// The clip for `name`, where it came from (`fallback`: the chime played instead).
    public func clip(_ name: String) -> (clip: AudioClip, origin: Origin) {
        if let hit = lock.withLock({ cache[name] }) { return hit }
        let found = load(name) ?? (name == "chime" ? (Self.tone(), .fallback) : (clip("chime").clip, .fallback))
        lock.withLock { cache[name] = found }
        return found
    }

    /// The names whose own file this build has (loading them into the cache on the way).
    public var soundsInBuild: [String] {
        ["chime", "glass", "bell", "water", "horn", "bells"].filter { clip($0).origin != .fallback }
    }

    private func load(_ name: String) -> (AudioClip, Origin)? {
        if let file = Self.themeFiles[name], let clip = try? AudioDecoder.decode(path: "\(themeFolder)/\(file)") {
            return (clip, .theme)
        }
        if let dir = ownFolder, let clip = try? AudioDecoder.decode(path: "\(dir)/\(name).oga") { return (clip, .lookd) }
        return nil
    }

    /// lookd's own sounds: `$LOOKD_SOUNDS`, else `share/lookd/sounds` beside the installed binary,
    /// else the checkout's `Sounds` folder above the built binary.
    public static func findOwnFolder() -> String? {
        OwnFiles.folder(environment: "LOOKD_SOUNDS", installed: "sounds", checkout: "Sounds", marker: "water.oga")
    }

    /// A last-resort chime, made in memory: two short sine tones.
    static func tone() -> AudioClip {
        let rate = 48_000
        let samples = (0..<Int(0.5 * Double(rate))).map { i -> Int16 in
            let t = Double(i) / Double(rate)
            let f = t < 0.2 ? 880.0 : 1318.5
            return Int16(9000 * exp(-t * 6) * sin(2 * .pi * f * t))
        }
        return AudioClip(samples: samples, rate: rate)
    }
}
