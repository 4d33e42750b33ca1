import LookCore

/// What a reaction reports when it finishes later than its fire: a sound played, a line spoken,
/// a countdown ended, a command run, a post sent. Reactions send these from their own threads; the records keep them.
public enum ReactionReport: Sendable, Equatable {
    case sound(SoundPlayed)
    case speech(LineSpoken)
    case timer(TimerEnded)
    case command(CommandRan)
    case post(PostSent)

    /// A sound of a fire (its own, or an effect's).
    public struct SoundPlayed: Sendable, Equatable {
        public var fire: Int
        public var condition: String
        /// The sound that played (`fallback` when the chosen one is missing from the build).
        public var sound: String
        public var chosen: String
        /// Seconds until it started, how long it played, and the clip's own length.
        public var started: Double?
        public var lasted: Double?
        public var clipSeconds: Double
        public var error: String?

        public init(
            fire: Int, condition: String, sound: String, chosen: String, started: Double?, lasted: Double?,
            clipSeconds: Double, error: String?
        ) {
            self.fire = fire
            self.condition = condition
            self.sound = sound
            self.chosen = chosen
            self.started = started
            self.lasted = lasted
            self.clipSeconds = clipSeconds
            self.error = error
        }
    }

    /// A `say:` line, synthesized and played.
    public struct LineSpoken: Sendable, Equatable {
        public var fire: Int
        public var condition: String
        public var line: String
        /// Seconds to synthesize it; from the request until it was heard, and until it ended.
        public var synthesized: Double
        public var heardAfter: Double?
        public var endedAfter: Double?
        /// Whether the output started at all (its start and end are recorded only then).
        public var started: Bool
        public var seconds: Double
        public var error: String?

        public init(
            fire: Int, condition: String, line: String, synthesized: Double, heardAfter: Double?, endedAfter: Double?,
            started: Bool, seconds: Double, error: String?
        ) {
            self.fire = fire
            self.condition = condition
            self.line = line
            self.synthesized = synthesized
            self.heardAfter = heardAfter
            self.endedAfter = endedAfter
            self.started = started
            self.seconds = seconds
            self.error = error
        }
    }

    /// A countdown reached its end: the chime and "Time's up" (their errors, when sound is on).
    public struct TimerEnded: Sendable, Equatable {
        public var condition: String
        public var minutes: Double
        /// nil when sound is off (nothing was played).
        public var chimeError: String??
        public var speechError: String??

        public init(condition: String, minutes: Double, chimeError: String?? = nil, speechError: String?? = nil) {
            self.condition = condition
            self.minutes = minutes
            self.chimeError = chimeError
            self.speechError = speechError
        }
    }

    /// A `run:` command ended (or could not start, or was dropped).
    public struct CommandRan: Sendable, Equatable {
        public var fire: Int
        public var condition: String
        public var arguments: [String]
        /// The exit status, or the signal that ended it.
        public var exitStatus: Int32?
        public var signal: Int32?
        public var seconds = 0.0
        /// Killed at the time limit.
        public var killed = false
        /// Standard output and error together, cut at the runner's limit; all the bytes it wrote.
        public var output = ""
        public var outputBytes = 0
        public var cut = false
        public var error: String?

        public init(fire: Int, condition: String, arguments: [String]) {
            self.fire = fire
            self.condition = condition
            self.arguments = arguments
        }

        /// Started and exited with status 0.
        public var succeeded: Bool { error == nil && exitStatus == 0 }
    }

    /// A `post:` sent (or given up on after its tries).
    public struct PostSent: Sendable, Equatable {
        public var fire: Int
        public var condition: String
        /// The URL without a password.
        public var url: String
        /// The last HTTP status (nil when no answer came).
        public var status: Int?
        public var attempts = 0
        public var seconds = 0.0
        public var snapshot = false
        /// Why it was not performed; nil when a 2xx came.
        public var error: String?

        public init(fire: Int, condition: String, url: String) {
            self.fire = fire
            self.condition = condition
            self.url = url
        }

        public var performed: Bool { error == nil }
    }
}
