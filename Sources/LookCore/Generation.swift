import Foundation

/// A model's answer and its numbers: what the engines return, the loop reads and the records keep.

/// What counts the tokens a question takes before its answer (the chat frame, a picture of
/// `width` × `height`, the prompt) and the context the question and answer share: a model, as the
/// settings see it when they check that the rules fit (nil: no such limit, the scripted engine).
public protocol InputCounting {
    func inputTokens(prompt: String, width: Int, height: Int) -> (input: Int, context: Int)?
}

/// Why a generation ended.
public enum StopReason: String, Sendable, Codable {
    case endOfText = "end", tokenLimit = "limit", cancelled = "stopped"
    /// The context was full: the answer stopped where the model had no room left.
    case contextFull = "context"
}

extension Generation {
    /// Adds a further answer to this one (a frame asked about in parts): the texts joined by a blank
    /// line, the times and tokens added, the first token the first one's; `encoded`: that part's
    /// picture encoding, paid before it.
    public mutating func append(_ other: Generation, encoded: Double) {
        var more = other
        more.timings.addEncoding(encoded)
        if timings == .none {
            self = more
            return
        }
        text += "\n\n" + more.text
        if more.stop != .endOfText { stop = more.stop }
        timings.total += more.timings.total
        timings.imageEncode += more.timings.imageEncode
        timings.inputTokens += more.timings.inputTokens
        timings.outputTokens += more.timings.outputTokens
    }
}

/// One answer: its text as written and how long it took.
public struct Generation: Sendable {
    public var text: String
    public var stop: StopReason
    public var timings: GenerationTimings

    public init(text: String, stop: StopReason, timings: GenerationTimings) {
        self.text = text
        self.stop = stop
        self.timings = timings
    }
}

/// The numbers of one answer. Times are seconds from the start of `generate`.
public struct GenerationTimings: Sendable, Codable, Equatable {
    /// Until the first answer token (the prompt read, the picture encoded if it was not already).
    public var firstToken: Double?
    /// Until the answer ended.
    public var total: Double
    /// Encoding the picture, when this call paid for it (0 when it was encoded before).
    public var imageEncode: Double
    /// Prompt positions read: text tokens and the picture's.
    public var inputTokens: Int
    /// Tokens generated.
    public var outputTokens: Int

    public init(firstToken: Double?, total: Double, imageEncode: Double, inputTokens: Int, outputTokens: Int) {
        self.firstToken = firstToken
        self.total = total
        self.imageEncode = imageEncode
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
    }

    /// An answer that never started (stopped while its prompt was read).
    public static let none = GenerationTimings(firstToken: nil, total: 0, imageEncode: 0, inputTokens: 0, outputTokens: 0)

    /// Counts an encoding paid before this answer (its seconds go into every time from the start).
    public mutating func addEncoding(_ seconds: Double) {
        imageEncode += seconds
        total += seconds
        firstToken = firstToken.map { $0 + seconds }
    }

    /// Tokens per second after the first: how fast the rest of the answer followed.
    public var tokensPerSecond: Double? {
        guard let first = firstToken, outputTokens > 1, total > first else { return nil }
        return Double(outputTokens - 1) / (total - first)
    }
}

/// A flag that stops a generation at its next token (and aborts a prompt being read).
public final class Cancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    private var windingDownSince: Double?
    private let clock: any Clock
    /// How long an answer under way may go on after a stop was asked for: the stop has 5 s (a
    /// server streaming a token every few seconds would otherwise hold it past systemd's limit).
    public let grace: Double

    public init(clock: any Clock, grace: Double = 5) {
        self.clock = clock
        self.grace = grace
    }

    public func cancel() { lock.withLock { cancelled = true } }
    /// Cancelled, or winding down for longer than the grace.
    public var isCancelled: Bool {
        lock.withLock { cancelled || windingDownSince.map { clock.now() - $0 >= grace } ?? false }
    }

    /// A stop was asked for: the answer under way may finish (within the grace), but nothing starts
    /// again (no retry, no backoff), and a question still waiting for its first token gives up.
    public func windDown() { lock.withLock { windingDownSince = windingDownSince ?? clock.now() } }
    public var isWindingDown: Bool { lock.withLock { windingDownSince != nil || cancelled } }
}
