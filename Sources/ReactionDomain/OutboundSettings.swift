/// How `run:` commands run: each one's time limit, how many at once, how many may wait, and the
/// output kept from each (`--run-timeout`, `--run-limit`, `--run-waiting`); values a watch's
/// settings carry, which the reactions' `CommandRunner` takes.
public struct CommandSettings: Sendable, Equatable {
    public var timeLimit: Double
    public var limit: Int
    public var waiting: Int
    public var outputLimit: Int

    public init(timeLimit: Double = 30, limit: Int = 4, waiting: Int = 16, outputLimit: Int = 4096) {
        self.timeLimit = timeLimit
        self.limit = limit
        self.waiting = waiting
        self.outputLimit = outputLimit
    }
}

/// How `post:` requests are sent: each try's time limits, the tries and their backoff, how many at
/// once and waiting, and how long a post waits for the fire's description or clip; values a watch's
/// settings carry, which the reactions' `Poster` takes.
public struct PostSettings: Sendable, Equatable {
    /// Seconds for one try, whole; and for its connection.
    public var timeLimit: Double
    public var connectLimit: Double
    public var attempts: Int
    /// Seconds before the second try; doubled for each one after.
    public var backoff: Double
    public var limit: Int
    public var waiting: Int
    /// Seconds a `wait: description` post waits for the fire's description (`--describe-timeout`).
    public var descriptionWait = 15.0
    /// Seconds a `wait: clip` post or command waits for the fire's clip; nil: clips are off.
    public var clipWait: Double?

    public init(timeLimit: Double = 10, connectLimit: Double = 5, attempts: Int = 3, backoff: Double = 1, limit: Int = 4, waiting: Int = 32) {
        self.timeLimit = timeLimit
        self.connectLimit = connectLimit
        self.attempts = attempts
        self.backoff = backoff
        self.limit = limit
        self.waiting = waiting
    }
}
