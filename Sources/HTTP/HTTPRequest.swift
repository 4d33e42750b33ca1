internal import CCurl
import Foundation

/// One HTTP request through libcurl, the one home of libcurl in lookd: a GET, or a POST of a body
/// (bytes, or `multipart/form-data` parts); headers, time limits (the whole exchange, and how long
/// the server may send nothing), redirects, and the answer's status and bytes handed over as they
/// arrive (a stream of server-sent events, a download). Blocking: run it off the watch's thread.
public struct HTTPRequest: Sendable {
    public struct Part: Sendable {
        public var name: String
        public var type: String
        /// The part's bytes, or a file whose bytes are sent.
        public var data: [UInt8]?
        public var file: String?

        public init(name: String, type: String, data: [UInt8]? = nil, file: String? = nil) {
            self.name = name
            self.type = type
            self.data = data
            self.file = file
        }
    }

    public enum Body: Sendable {
        case bytes([UInt8], type: String)
        case multipart([Part])
    }

    public var url: String
    /// nil: a GET.
    public var body: Body?
    public var headers: [(String, String)] = []
    /// Seconds: for the connection, and for the whole exchange (0: no limit).
    public var connectLimit: Double = 5
    public var timeLimit: Double = 10
    /// Seconds the server may send nothing (before its answer, or between bytes) before the exchange
    /// ends as timed out; nil: only `timeLimit` bounds it.
    public var idleLimit: Double?
    /// Whether redirects are followed (a download from the Hub's CDN).
    public var followRedirects = false
    /// Once the answer's head has begun, seconds it may take to end, and the most bytes it may have:
    /// a server that sends headers without end is cut off, not waited on for ever.
    public var headLimit: Double = 30
    public static let headBytes = 256 * 1024

    public init(
        url: String, body: Body? = nil, headers: [(String, String)] = [], connectLimit: Double = 5, timeLimit: Double = 10,
        idleLimit: Double? = nil, followRedirects: Bool = false
    ) {
        self.url = url
        self.body = body
        self.headers = headers
        self.connectLimit = connectLimit
        self.timeLimit = timeLimit
        self.idleLimit = idleLimit
        self.followRedirects = followRedirects
    }

    /// Why an exchange failed, by kind.
    public enum Failure: Sendable, Equatable {
        case timedOut, noHost, refused, lost
        case secure(String)
        /// `head` or `received` cut it short.
        case cut
        case other(String)
    }

    public struct Answer: Sendable {
        /// The HTTP status, when an answer came (0 otherwise).
        public var status: Int
        /// Why the exchange failed (no answer, a time limit, cut short by `received`); nil when whole.
        public var error: String?
        public var failure: Failure?
    }

    /// The answer's status and its announced length (nil when the server did not say), before its bytes.
    public struct Head: Sendable {
        public var status: Int
        public var length: Int64?
    }

    private static let ready: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// Sends the request. `received` gets the answer's bytes as they come and returns false to cut
    /// the exchange short; `keepGoing` is asked about once a second, and at each chunk, and ends the
    /// exchange when it returns false (a first-token limit, a cancellation).
    /// `head`, when given, sees the final answer's status and length before its first bytes (or at the
    /// end, when it has none) and returns false to take none of them.
    public func send(
        head: ((Head) -> Bool)? = nil, received: @escaping ([UInt8]) -> Bool = { _ in true }, keepGoing: @escaping () -> Bool = { true }
    ) -> Answer {
        guard Self.ready, let curl = curl_easy_init() else {
            return Answer(status: 0, error: "libcurl could not start", failure: .other("libcurl could not start"))
        }
        defer { curl_easy_cleanup(curl) }
        var list: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(list) }
        var mime: OpaquePointer?
        defer { curl_mime_free(mime) }
        let sink = Sink(curl: curl, head: head, received: received, keepGoing: keepGoing, headLimit: headLimit)
        let context = Unmanaged.passUnretained(sink).toOpaque()
        return withExtendedLifetime(sink) {
            _ = lookd_curl_set_pointer(curl, CURLOPT_URL, url)
            _ = lookd_curl_set_pointer(curl, CURLOPT_PROTOCOLS_STR, "http,https")
            _ = lookd_curl_set_long(curl, CURLOPT_NOSIGNAL, 1)
            _ = lookd_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT_MS, Int(connectLimit * 1000))
            _ = lookd_curl_set_long(curl, CURLOPT_TIMEOUT_MS, Int(timeLimit * 1000))
            _ = lookd_curl_set_pointer(curl, CURLOPT_USERAGENT, "lookd")
            Self.listen(curl, context)
            _ = lookd_curl_set_long(curl, CURLOPT_NOPROGRESS, 0)
            if let idleLimit {
                _ = lookd_curl_set_long(curl, CURLOPT_LOW_SPEED_LIMIT, 1)
                _ = lookd_curl_set_long(curl, CURLOPT_LOW_SPEED_TIME, max(1, Int(idleLimit.rounded())))
            }
            if followRedirects {
                _ = lookd_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 1)
                _ = lookd_curl_set_long(curl, CURLOPT_MAXREDIRS, 10)
            }
            setBody(curl, list: &list, mime: &mime)
            for (name, value) in headers { list = curl_slist_append(list, "\(name): \(value)") }
            // No "Expect: 100-continue" wait on larger bodies.
            list = curl_slist_append(list, "Expect:")
            _ = lookd_curl_set_pointer(curl, CURLOPT_HTTPHEADER, UnsafeRawPointer(list))
            return Self.answer(curl_easy_perform(curl), status: Int(lookd_curl_response_code(curl)), sink: sink)
        }
    }

    /// The callbacks that take the answer's bytes and headers into `context` (a `Sink`) and ask it,
    /// as the exchange goes, whether to go on.
    private static func listen(_ curl: UnsafeMutableRawPointer, _ context: UnsafeMutableRawPointer) {
        _ = lookd_curl_set_pointer(curl, CURLOPT_WRITEDATA, context)
        _ = lookd_curl_set_write(curl) { data, size, count, context in
            guard let data, let context else { return 0 }
            let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
            let bytes = [UInt8](UnsafeRawBufferPointer(start: data, count: size * count))
            guard sink.headTaken(), sink.received(bytes), sink.keepGoing() else {
                sink.cut = true
                return 0
            }
            return size * count
        }
        _ = lookd_curl_set_pointer(curl, CURLOPT_HEADERDATA, context)
        _ = lookd_curl_set_header(curl) { data, size, count, context in
            guard let data, let context else { return 0 }
            let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
            return sink.header(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
        }
        _ = lookd_curl_set_pointer(curl, CURLOPT_XFERINFODATA, context)
        _ = lookd_curl_set_progress(curl) { context, _, _, _, _ in
            guard let context else { return 0 }
            let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
            if sink.headOverdue() { return 1 }
            if sink.keepGoing() { return 0 }
            sink.cut = true
            return 1
        }
    }

    /// The request's body (none: a GET), its content type added to `list`.
    private func setBody(_ curl: UnsafeMutableRawPointer, list: inout UnsafeMutablePointer<curl_slist>?, mime: inout OpaquePointer?) {
        switch body {
        case nil: _ = lookd_curl_set_long(curl, CURLOPT_HTTPGET, 1)
        case .bytes(let bytes, let type)?:
            list = curl_slist_append(list, "Content-Type: \(type)")
            _ = lookd_curl_set_size(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
            _ = bytes.withUnsafeBytes { lookd_curl_set_pointer(curl, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
        case .multipart(let parts)?:
            mime = curl_mime_init(curl)
            for part in parts {
                let p = curl_mime_addpart(mime)
                curl_mime_name(p, part.name)
                if let data = part.data { _ = data.withUnsafeBytes { curl_mime_data(p, $0.baseAddress, $0.count) } }
                if let file = part.file { curl_mime_filedata(p, file) }
                curl_mime_type(p, part.type)
            }
            _ = lookd_curl_set_pointer(curl, CURLOPT_MIMEPOST, UnsafeRawPointer(mime))
        }
    }

    /// The answer to an exchange that ended with `code` and `status`.
    private static func answer(_ code: CURLcode, status: Int, sink: Sink) -> Answer {
        // A time limit that ends a head still going on is the head's doing: headers, not silence.
        if code == CURLE_OPERATION_TIMEDOUT, sink.headProblem == nil, sink.inHead { sink.overrun() }
        if let problem = sink.headProblem { return Answer(status: status, error: problem, failure: .other(problem)) }
        if sink.cut && (code == CURLE_WRITE_ERROR || code == CURLE_ABORTED_BY_CALLBACK) {
            return Answer(status: status, error: "cut short", failure: .cut)
        }
        if code == CURLE_OK, !sink.headTaken() { return Answer(status: status, error: "cut short", failure: .cut) }
        guard code == CURLE_OK else {
            return Answer(status: status, error: String(cString: curl_easy_strerror(code)), failure: Self.failure(code))
        }
        return Answer(status: status, error: nil, failure: nil)
    }

    /// A libcurl error by kind.
    private static func failure(_ code: CURLcode) -> Failure {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return .timedOut
        case CURLE_COULDNT_RESOLVE_HOST: return .noHost
        case CURLE_COULDNT_CONNECT: return .refused
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING: return .lost
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE:
            return .secure(String(cString: curl_easy_strerror(code)))
        default: return .other(String(cString: curl_easy_strerror(code)))
        }
    }

    private final class Sink {
        let curl: UnsafeMutableRawPointer
        let head: ((Head) -> Bool)?
        let received: ([UInt8]) -> Bool
        let keepGoing: () -> Bool
        var cut = false
        /// What `head` said, once asked.
        private var taken: Bool?
        let headLimit: Double
        /// The answer's head: when it began (nil before it, and once it ended), its bytes so far, and
        /// why it was cut off.
        private var headStarted: Double?
        private var headBytes = 0
        private(set) var headProblem: String?

        init(
            curl: UnsafeMutableRawPointer, head: ((Head) -> Bool)?, received: @escaping ([UInt8]) -> Bool, keepGoing: @escaping () -> Bool,
            headLimit: Double
        ) {
            self.curl = curl
            self.head = head
            self.received = received
            self.keepGoing = keepGoing
            self.headLimit = headLimit
        }

        /// One header line of an answer's head (a redirect's or a `100 Continue`'s included); false
        /// cuts the exchange: more head than any server sends.
        func header(_ line: UnsafeRawBufferPointer) -> Bool {
            if line.starts(with: Array("HTTP/".utf8)) { headStarted = headStarted ?? ProcessInfo.processInfo.systemUptime }
            headBytes += line.count
            if line.count <= 2 && line.allSatisfy({ $0 == 13 || $0 == 10 }) { headStarted = nil } // the head's blank line
            guard headBytes <= HTTPRequest.headBytes else {
                headProblem = "the server sent more than \(HTTPRequest.headBytes / 1024) KB of response headers"
                return false
            }
            return true
        }

        /// Whether a head that began has gone on past its limit (then it is cut off, and why said).
        func headOverdue() -> Bool {
            guard let started = headStarted, ProcessInfo.processInfo.systemUptime - started > headLimit else { return false }
            overrun()
            return true
        }

        var inHead: Bool { headStarted != nil }

        func overrun() { headProblem = "the server's response headers did not end within \(Int(headLimit)) s" }

        /// Asks `head` once, with the final answer's status and length.
        func headTaken() -> Bool {
            if let taken { return taken }
            let length = lookd_curl_content_length(curl)
            let ok = head?(Head(status: Int(lookd_curl_response_code(curl)), length: length >= 0 ? Int64(length) : nil)) ?? true
            taken = ok
            return ok
        }
    }
}
