internal import CCurl
import Foundation
import LookCore

/// Sends `post:` fires with libcurl: the fire as JSON (with the snapshot as a second part of a
/// `multipart/form-data` body when asked) or as one line of text. Each try has a time limit; a
/// failed try (no answer, a 5xx or a 429) is tried again after 1 s, then 2 s, up to `attempts`.
public final class Poster: @unchecked Sendable {
    public struct Settings: Sendable, Equatable {
        /// Seconds for one try, whole; and for its connection.
        public var timeLimit: Double
        public var connectLimit: Double
        public var attempts: Int
        /// Seconds before the second try; doubled for each one after.
        public var backoff: Double
        public var limit: Int
        public var waiting: Int

        public init(timeLimit: Double = 10, connectLimit: Double = 5, attempts: Int = 3, backoff: Double = 1, limit: Int = 4, waiting: Int = 32) {
            self.timeLimit = timeLimit
            self.connectLimit = connectLimit
            self.attempts = attempts
            self.backoff = backoff
            self.limit = limit
            self.waiting = waiting
        }
    }

    public let settings: Settings
    private let workers: Workers
    private static let ready: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    public init(settings: Settings = Settings()) {
        self.settings = settings
        workers = Workers(name: "lookd post", limit: settings.limit, waiting: settings.waiting)
        _ = Self.ready
    }

    /// Posts dropped because too many were sending and waiting.
    public var dropped: Int { workers.dropped }

    /// Sends (or queues) `post` for `fire`; `done` gets the outcome on the post's thread. False when
    /// it was dropped (`done` is then not called).
    public func start(_ post: Post, fire: FireContext, done: @escaping @Sendable (ReactionReport.PostSent) -> Void) -> Bool {
        let settings = settings
        return workers.submit { done(Self.send(post, fire: fire, settings: settings)) }
    }

    /// Sends `post` and waits for the outcome, tries included (on the calling thread).
    static func send(_ post: Post, fire: FireContext, settings: Settings) -> ReactionReport.PostSent {
        var sent = ReactionReport.PostSent(fire: fire.fire, condition: fire.condition, url: post.shownURL)
        let started = Date()
        sent.snapshot = post.snapshot && fire.snapshot != nil
        for attempt in 1...max(1, settings.attempts) {
            sent.attempts = attempt
            let (status, error) = once(post, fire: fire, settings: settings)
            sent.status = status
            if let status, (200..<300).contains(status) {
                sent.error = nil
                break
            }
            sent.error = error ?? "HTTP \(status ?? 0)"
            // A 4xx other than 429 is the request's fault: trying again gives the same answer.
            if let status, (400..<500).contains(status), status != 429 { break }
            if attempt < settings.attempts { Thread.sleep(forTimeInterval: settings.backoff * pow(2, Double(attempt - 1))) }
        }
        if sent.error != nil, sent.attempts > 1 { sent.error! += " (after \(sent.attempts) tries)" }
        sent.seconds = Date().timeIntervalSince(started)
        return sent
    }

    /// One try: the HTTP status, or why none came.
    private static func once(_ post: Post, fire: FireContext, settings: Settings) -> (Int?, String?) {
        guard ready, let curl = curl_easy_init() else { return (nil, "libcurl could not start") }
        defer { curl_easy_cleanup(curl) }
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        var mime: OpaquePointer?
        defer { curl_mime_free(mime) }
        let body = post.format == .json ? fire.json.text() : fire.line
        let strings = [post.url, body]
        return strings.withCStrings { c -> (Int?, String?) in
            _ = lookd_curl_set_pointer(curl, CURLOPT_URL, c[0])
            _ = lookd_curl_set_pointer(curl, CURLOPT_PROTOCOLS_STR, "http,https")
            _ = lookd_curl_set_long(curl, CURLOPT_NOSIGNAL, 1)
            _ = lookd_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT_MS, Int(settings.connectLimit * 1000))
            _ = lookd_curl_set_long(curl, CURLOPT_TIMEOUT_MS, Int(settings.timeLimit * 1000))
            _ = lookd_curl_set_pointer(curl, CURLOPT_USERAGENT, "lookd")
            _ = lookd_curl_set_write(curl) { _, size, count, _ in size * count }
            if post.snapshot, let snapshot = fire.snapshot {
                mime = curl_mime_init(curl)
                let part = curl_mime_addpart(mime)
                curl_mime_name(part, "fire")
                curl_mime_data(part, c[1], Int(strlen(c[1]!)))
                curl_mime_type(part, "application/json")
                let picture = curl_mime_addpart(mime)
                curl_mime_name(picture, "snapshot")
                curl_mime_filedata(picture, snapshot)
                curl_mime_type(picture, "image/jpeg")
                _ = lookd_curl_set_pointer(curl, CURLOPT_MIMEPOST, UnsafeRawPointer(mime))
            } else {
                let type = post.format == .json ? "Content-Type: application/json" : "Content-Type: text/plain; charset=utf-8"
                headers = curl_slist_append(headers, type)
                _ = lookd_curl_set_size(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(strlen(c[1]!)))
                _ = lookd_curl_set_pointer(curl, CURLOPT_COPYPOSTFIELDS, c[1])
            }
            for header in post.headers { headers = curl_slist_append(headers, "\(header.name): \(header.value)") }
            // No "Expect: 100-continue" wait on larger bodies.
            headers = curl_slist_append(headers, "Expect:")
            _ = lookd_curl_set_pointer(curl, CURLOPT_HTTPHEADER, UnsafeRawPointer(headers))
            let code = curl_easy_perform(curl)
            guard code == CURLE_OK else { return (nil, String(cString: curl_easy_strerror(code))) }
            let status = lookd_curl_response_code(curl)
            return (Int(status), nil)
        }
    }
}

extension Array where Element == String {
    /// Calls `body` with the strings as C strings that live for the call.
    fileprivate func withCStrings<R>(_ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies = map { strdup($0) }
        defer { for p in copies { free(p) } }
        return body(copies.map { UnsafePointer($0) })
    }
}
