import Foundation
import LookCore

/// What a `run:` rule starts: a program and its arguments, passed as they are (no shell).
public struct Command: Sendable, Equatable {
    /// The program as written, then its arguments.
    public var arguments: [String]
    /// The program's full path, found at load (`PATH` searched for a bare name).
    public var executable: String
    /// `wait: description`: the command starts once the fire's description is in (or has failed,
    /// or its wait is over), with it in `LOOKD_DESCRIPTION` and its JSON.
    public var waitForDescription = false
    /// `wait: clip`: the command starts once the fire's clip is written (or has failed, or its wait
    /// is over), with its path in `LOOKD_CLIP` and its JSON.
    public var waitForClip = false

    public init(arguments: [String], executable: String) {
        self.arguments = arguments
        self.executable = executable
    }
}

/// Where a `post:` rule sends its fire, and how.
public struct Post: Sendable, Equatable {
    public enum Format: String, Sendable, CaseIterable {
        /// The fire as JSON (`application/json`).
        case json
        /// One line of plain text, as ntfy and chat webhooks take it.
        case text
    }

    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public var url: String
    public var format: Format
    public var headers: [Header]
    /// Whether the fire's snapshot goes too, as a second part of a `multipart/form-data` body.
    public var snapshot: Bool
    /// `wait: description`: the post goes once the fire's description is in (or has failed, or its
    /// wait is over), and carries it.
    public var waitForDescription = false
    /// `wait: clip`: the post goes once the fire's clip is written (or has failed, or its wait is
    /// over), and carries it as a part of a `multipart/form-data` body (`clip`, up to `clipLimit`).
    public var waitForClip = false
    /// What it carries: the fire (as `format` says), or a reaction's own message.
    public var body = Body.fire

    public enum Body: Sendable, Equatable {
        /// The fire, as `format` says (with the snapshot as a second part when `snapshot` is on).
        case fire
        /// A text of the reaction's own (a notification's message), of this content type.
        case text(String, type: String)
        /// The fire's snapshot itself (`image/jpeg`); the text when the fire has none.
        case picture(orText: String)
        /// An HTML form as multipart/form-data: text fields, and the fire's snapshot as the part
        /// named `attachment` when one is given and the fire has a snapshot.
        case form([Header], attachment: String?)
    }

    public init(url: String, format: Format = .json, headers: [Header] = [], snapshot: Bool = false) {
        self.url = url
        self.format = format
        self.headers = headers
        self.snapshot = snapshot
    }

    /// The URL as records and the journal show it: scheme, host and port (`Secrets.outbound`).
    public var shownURL: String { Secrets.outbound(url: url) }

    /// What keeps `text` (trimmed) from being a URL lookd can send to; nil when it can.
    public enum URLProblem: Sendable, Equatable {
        /// Not http:// or https:// with a host.
        case notHTTP
        /// A space (write %20).
        case space
        /// A port outside 1 to 65535.
        case port(Int)
    }

    /// Checks an http or https URL (a `post:`'s, a `notify:`'s), as the request will need it.
    public static func urlProblem(_ text: String) -> URLProblem? {
        guard let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = parts.host, !host.isEmpty
        else { return .notHTTP }
        if text.contains(where: \.isWhitespace) { return .space }
        if let port = parts.port, !(1...65535).contains(port) { return .port(port) }
        return nil
    }
}

/// One fire as it leaves lookd: the JSON that `run:` commands read on standard input, `post:` sends
/// and MQTT publishes, and the environment commands get.
public struct FireContext: Sendable, Equatable {
    /// The fire's number in the run, the rule's number in the prompt (from 1), its words and reaction.
    public var fire: Int
    public var rule: Int
    public var condition: String
    public var reaction: String
    /// The frame that fired and when it fired.
    public var frame: Int
    public var time: Date
    /// `appear` or `disappear`.
    public var edge: String
    /// P(yes) of the answer that fired, when the answer was constrained.
    public var confidence: Double?
    /// The fired frame as JPEG, when snapshots are on.
    public var snapshot: String?
    /// Where the thing is, when the rule asked.
    public var box: Box?
    /// The instance that fired (`--name`), for outputs that several instances share.
    public var instance: String
    /// The fire's description, for outputs that waited for it; why there is none, when none came.
    public var description: String?
    public var descriptionProblem: String?
    /// The fire's clip, for outputs that waited for it; why there is none, when none came.
    public var clip: String?
    public var clipProblem: String?
    /// Where a person reviews the fire (the page's `/history`, when `--http` is on): a
    /// notification's link when its rule names none.
    public var page: String?

    public init(
        fire: Int, rule: Int, condition: String, reaction: String, frame: Int, time: Date, edge: String = "appear",
        confidence: Double? = nil, snapshot: String? = nil, box: Box? = nil, instance: String = "lookd"
    ) {
        self.fire = fire
        self.rule = rule
        self.condition = condition
        self.reaction = reaction
        self.frame = frame
        self.time = time
        self.edge = edge
        self.confidence = confidence
        self.snapshot = snapshot
        self.box = box
        self.instance = instance
    }

    /// The time as ISO 8601 with milliseconds, UTC.
    public var isoTime: String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: time)
    }

    /// The box as `left,top,right,bottom` in per mille, or nil.
    public var boxText: String? { box.map { "\($0.left),\($0.top),\($0.right),\($0.bottom)" } }

    public var json: JSON {
        .object(
            [
                ("instance", .string(instance)), ("fire", .int(fire)), ("rule", .int(rule)), ("condition", .string(condition)),
                ("reaction", .string(reaction)), ("edge", .string(edge)), ("frame", .int(frame)), ("time", .string(isoTime)),
                ("confidence", .optional(confidence, places: 4)), ("snapshot", .optional(snapshot)),
                ("box", box.map { .ints([$0.left, $0.top, $0.right, $0.bottom]) } ?? .null),
            ] + described + clipped)
    }

    /// A fire that waited for its clip carries it, or says why there is none.
    private var clipped: [(String, JSON)] {
        guard clip != nil || clipProblem != nil else { return [] }
        return [("clip", .optional(clip)), ("clip_problem", .optional(clipProblem))]
    }

    /// A fire that waited for its description carries it, or says why there is none.
    private var described: [(String, JSON)] {
        guard description != nil || descriptionProblem != nil else { return [] }
        return [("description", .optional(description)), ("description_problem", .optional(descriptionProblem))]
    }

    /// The plain-text line a `format: text` post sends.
    public var line: String {
        if let description { return "\(description) (\(condition), \(instance))" }
        var words = "\(condition) (rule \(rule), \(edge == "appear" ? "seen" : "gone")"
        if let confidence { words += String(format: ", %.0f%%", confidence * 100) }
        return words + ", \(instance), \(isoTime))"
    }

    /// The variables a command gets: `LOOKD_RULE`, `LOOKD_CONDITION`, … (empty when unknown).
    public var environment: [String: String] {
        [
            "LOOKD_INSTANCE": instance, "LOOKD_FIRE": String(fire), "LOOKD_RULE": String(rule), "LOOKD_CONDITION": condition,
            "LOOKD_REACTION": reaction, "LOOKD_EDGE": edge, "LOOKD_FRAME": String(frame), "LOOKD_TIME": isoTime,
            "LOOKD_CONFIDENCE": confidence.map { String(format: "%.4f", $0) } ?? "", "LOOKD_SNAPSHOT": snapshot ?? "",
            "LOOKD_BOX": boxText ?? "", "LOOKD_DESCRIPTION": description ?? "", "LOOKD_CLIP": clip ?? "",
        ]
    }
}

/// Commands and posts so far: ended, failed (of those), and dropped (the queue was full).
public struct OutboundCounts: Sendable, Equatable {
    public var commands = 0
    public var commandsFailed = 0
    public var commandsDropped = 0
    public var posts = 0
    public var postsFailed = 0
    public var postsDropped = 0

    public init() {}

    /// The status file's `commands` and `posts` entries.
    public var fields: [(String, JSON)] {
        [
            ("commands", .object([("ended", .int(commands)), ("failed", .int(commandsFailed)), ("dropped", .int(commandsDropped))])),
            ("posts", .object([("ended", .int(posts)), ("failed", .int(postsFailed)), ("dropped", .int(postsDropped))])),
        ]
    }
}
