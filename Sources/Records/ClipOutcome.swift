import LookCore

/// A fire's clip: the file, where it starts in the source and how long it is, its pictures and
/// bytes, how long writing it took, and whether the source's packets were copied or encoded; or
/// why there is none. Fires that overlap share one clip: each gets this event, with its own number.
public struct ClipOutcome: Sendable, Equatable {
    /// The fire (its number in the run) and its rule (from 0) and words.
    public var fire: Int
    public var rule: Int
    public var condition: String
    /// The clip's path; nil when it failed.
    public var path: String?
    /// Seconds into the source where it starts (a camera's: on the run's clock), and its length.
    public var start: Double
    public var duration: Double
    /// The fire's own time in the source: the clip holds `before` seconds before it.
    public var before: Double
    public var frames: Int
    public var bytes: Int
    /// Seconds from the fire to the clip on the disk (the post-roll's wait included), and the
    /// writing alone.
    public var seconds: Double
    public var writing: Double
    /// `copy` (the source's H.264 packets) or `libx264` (encoded).
    public var method: String
    /// How it starts at the asked time: `edit list` (copied packets from the keyframe before it, the
    /// MP4's edit list skipping them), `encoded`, or `keyframe` (on the first keyframe kept).
    public var starts = "keyframe"
    /// The fires it covers (more than one when they overlapped).
    public var fires: [Int]
    public var error: String?
    /// What the source's last seconds took in memory when it was cut (a file's: nothing), and their length.
    public var prerollBytes = 0
    public var prerollSeconds = 0.0

    public init(
        fire: Int, rule: Int, condition: String, path: String?, start: Double = 0, duration: Double = 0, before: Double = 0,
        frames: Int = 0, bytes: Int = 0, seconds: Double = 0, writing: Double = 0, method: String = "", fires: [Int] = [], error: String? = nil
    ) {
        (self.fire, self.rule, self.condition, self.path, self.start, self.duration) = (fire, rule, condition, path, start, duration)
        (self.before, self.frames, self.bytes, self.seconds, self.writing) = (before, frames, bytes, seconds, writing)
        (self.method, self.fires, self.error) = (method, fires.isEmpty ? [fire] : fires, error)
    }

    /// The `clip` event line's fields (and the run record's clip entry).
    public var eventFields: [(String, JSON)] {
        [
            ("fire", .int(fire)), ("rule", .int(rule + 1)), ("condition", .string(condition)), ("clip", .optional(path)),
            ("start_s", .number(start, places: 3)), ("duration_s", .number(duration, places: 3)),
            ("before_s", .number(before, places: 3)), ("frames", .int(frames)), ("bytes", .int(bytes)),
            ("clip_ms", .number(seconds * 1000, places: 1)), ("write_ms", .number(writing * 1000, places: 1)),
            ("method", .string(method)), ("starts", .string(starts)), ("fires", .ints(fires)), ("error", .optional(error)),
            ("preroll_bytes", .int(prerollBytes)), ("preroll_s", .number(prerollSeconds, places: 3)),
        ]
    }
}

/// Clips removed to keep within `--keep-days` and `--keep-size`, oldest first, and why; the
/// history drops their fires' rows (and those rows' snapshots) with them.
public struct ClipsRemoved: Sendable, Equatable {
    public var paths: [String]
    public var bytes: Int
    /// `older than 30 d`, `over 2 GiB`.
    public var why: String

    public init(paths: [String], bytes: Int, why: String) { (self.paths, self.bytes, self.why) = (paths, bytes, why) }

    /// The `clips_removed` event line's fields.
    public var eventFields: [(String, JSON)] {
        [("count", .int(paths.count)), ("bytes", .int(bytes)), ("why", .string(why)), ("clips", .strings(paths))]
    }
}
