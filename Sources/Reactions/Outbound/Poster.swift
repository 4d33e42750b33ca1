import Foundation
import HTTP
import LookCore
import Platform
import ReactionDomain

/// Sends `post:` fires with libcurl: the fire as JSON (with the snapshot as a second part of a
/// `multipart/form-data` body when asked) or as one line of text. Each try has a time limit; a
/// failed try (no answer, a 5xx or a 429) is tried again after 1 s, then 2 s, up to `attempts`.
/// Each endpoint (scheme, host and port) has workers of its own, so a webhook that never answers
/// holds up only its own posts.
public final class Poster: @unchecked Sendable {
    public typealias Settings = PostSettings

    public let settings: Settings
    private let lock = NSLock()
    private var pools: [String: Workers] = [:]
    /// Posts sending now, by a number of their own: what a stop reports of them, and when each began.
    private var inFlight: [Int: (sent: ReactionReport.PostSent, since: Double)] = [:]
    private var nextNumber = 0

    /// The clock the posts' seconds and their backoff are read on.
    let clock: any Clock

    public init(settings: Settings = Settings(), clock: any Clock) {
        self.settings = settings
        self.clock = clock
    }

    /// The workers of `post`'s endpoint, made when it first posts.
    private func workers(for post: Post) -> Workers {
        let parts = URLComponents(string: post.url)
        let endpoint = "\(parts?.scheme ?? "")://\(parts?.host ?? ""):\(parts?.port ?? 0)"
        return lock.withLock {
            if let pool = pools[endpoint] { return pool }
            let pool = Workers(name: "lookd post", limit: settings.limit, waiting: settings.waiting)
            pools[endpoint] = pool
            return pool
        }
    }

    private var all: [Workers] { lock.withLock { Array(pools.values) } }

    /// Posts dropped because too many were sending and waiting for their endpoint.
    public var dropped: Int { all.map(\.dropped).reduce(0, +) }

    /// Whether any run or wait now.
    public var busy: Bool { all.contains(where: \.busy) }

    /// Sends (or queues) `post` for `fire`; `done` gets the outcome on the post's thread, or why it
    /// was dropped (the queue full: then false is returned; a stop before it started).
    public func start(_ post: Post, fire: FireContext, done: @escaping @Sendable (ReactionReport.PostSent) -> Void) -> Bool {
        let settings = settings
        let number = lock.withLock {
            nextNumber += 1
            return nextNumber
        }
        return workers(for: post).submit(
            { [self] in
                lock.withLock {
                    inFlight[number] = (ReactionReport.PostSent(fire: fire.fire, condition: fire.condition, url: post.shownURL), clock.now())
                }
                let sent = Self.send(post, fire: fire, settings: settings, clock: clock)
                // A stop that reported it already (still waiting then) has the last word.
                if lock.withLock({ inFlight.removeValue(forKey: number) != nil }) { done(sent) }
            },
            dropped: { reason in
                var sent = ReactionReport.PostSent(fire: fire.fire, condition: fire.condition, url: post.shownURL)
                sent.error = reason
                done(sent)
            })
    }

    /// A stop's wait is over: the posts still waiting for an answer, as reports that say so (their
    /// webhook may or may not have them); those queued never start (counted as dropped).
    public func stopAll() -> [ReactionReport.PostSent] {
        for pool in all { pool.cancelWaiting() }
        let now = clock.now()
        return lock.withLock {
            defer { inFlight.removeAll() }
            return inFlight.values.sorted { $0.sent.fire < $1.sent.fire }.map { entry in
                var sent = entry.sent
                sent.seconds = now - entry.since
                sent.error =
                    "still waiting for an answer when lookd stopped (after \(String(format: "%.1f", sent.seconds)) s); "
                    + "not known to have arrived"
                return sent
            }
        }
    }

    /// Sends `post` and waits for the outcome, tries included (on the calling thread).
    static func send(_ post: Post, fire: FireContext, settings: Settings, clock: any Clock) -> ReactionReport.PostSent {
        var sent = ReactionReport.PostSent(fire: fire.fire, condition: fire.condition, url: post.shownURL)
        let started = clock.now()
        switch post.body {
        case .picture: sent.snapshot = fire.snapshot != nil
        case .form(_, let attachment): sent.snapshot = attachment != nil && fire.snapshot != nil
        case .fire, .text: sent.snapshot = post.snapshot && fire.snapshot != nil
        }
        for attempt in 1...max(1, settings.attempts) {
            sent.attempts = attempt
            let (status, error) = once(post, fire: fire, settings: settings)
            sent.status = status
            if let status, (200..<300).contains(status) {
                sent.error = nil
                break
            }
            sent.error = error ?? "HTTP \(status ?? 0)"
            // A 4xx other than 429 is the request's fault, and a 3xx (redirects are not followed) is
            // the URL's: trying again gives the same answer.
            if let status, (300..<500).contains(status), status != 429 { break }
            if attempt < settings.attempts { clock.sleep(settings.backoff * pow(2, Double(attempt - 1))) }
        }
        if sent.error != nil, sent.attempts > 1 { sent.error! += " (after \(sent.attempts) tries)" }
        sent.seconds = clock.now() - started
        return sent
    }

    /// One try: the HTTP status, or why none came.
    private static func once(_ post: Post, fire: FireContext, settings: Settings) -> (Int?, String?) {
        let request = HTTPRequest(
            url: post.url, body: body(post, fire: fire), headers: post.headers.map { ($0.name, $0.value) },
            connectLimit: settings.connectLimit, timeLimit: settings.timeLimit)
        let answer = request.send()
        if let error = answer.error { return (nil, error) }
        return (answer.status, nil)
    }

    /// The largest snapshot sent as a request's body (ntfy takes attachments up to 15 MB).
    static let pictureLimit = 15 << 20
    /// The largest clip sent as a part (`wait: clip`); a larger one goes as its path only.
    public static let clipLimit = 50 << 20

    /// What the request carries: the fire as JSON or a line (the snapshot as a second part when
    /// asked), a reaction's own text, or the snapshot itself.
    private static func body(_ post: Post, fire: FireContext) -> HTTPRequest.Body {
        let plain = "text/plain; charset=utf-8"
        switch post.body {
        case .text(let text, let type): return .bytes(Array(text.utf8), type: type)
        case .picture(let text):
            guard let path = fire.snapshot, case .bytes(let data) = BoundedRead.read(path, limit: pictureLimit) else {
                return .bytes(Array(text.utf8), type: plain)
            }
            return .bytes([UInt8](data), type: "image/jpeg")
        case .form(let fields, let attachment):
            var parts = fields.map { HTTPRequest.Part(name: $0.name, type: plain, data: Array($0.value.utf8)) }
            if let attachment, let snapshot = fire.snapshot { parts.append(.init(name: attachment, type: "image/jpeg", file: snapshot)) }
            return .multipart(parts)
        case .fire:
            let text = post.format == .json ? fire.json.text() : fire.line
            var parts: [HTTPRequest.Part] = []
            if post.snapshot, let snapshot = fire.snapshot { parts.append(.init(name: "snapshot", type: "image/jpeg", file: snapshot)) }
            if post.waitForClip, let clip = fire.clip { parts.append(.init(name: "clip", type: "video/mp4", file: clip)) }
            guard !parts.isEmpty else { return .bytes(Array(text.utf8), type: post.format == .json ? "application/json" : plain) }
            return .multipart([.init(name: "fire", type: "application/json", data: Array(text.utf8))] + parts)
        }
    }
}
