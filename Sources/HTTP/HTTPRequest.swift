internal import CCurl
import Foundation

/// One HTTP request through libcurl, the one home of libcurl in lookd: a body (bytes, or
/// `multipart/form-data` parts), headers, time limits, and the answer's bytes handed over as they
/// arrive (a stream of server-sent events, say). Blocking: run it off the watch's thread.
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
    public var body: Body
    public var headers: [(String, String)] = []
    /// Seconds: for the connection, and for the whole exchange.
    public var connectLimit: Double = 5
    public var timeLimit: Double = 10

    public init(url: String, body: Body, headers: [(String, String)] = [], connectLimit: Double = 5, timeLimit: Double = 10) {
        self.url = url
        self.body = body
        self.headers = headers
        self.connectLimit = connectLimit
        self.timeLimit = timeLimit
    }

    public struct Answer: Sendable {
        /// The HTTP status, when an answer came (0 otherwise).
        public var status: Int
        /// Why the exchange failed (no answer, a time limit, cut short by `received`); nil when whole.
        public var error: String?
    }

    private static let ready: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// Sends the request. `received` gets the answer's bytes as they come and returns false to cut
    /// the exchange short; `keepGoing` is asked about once a second, and at each chunk, and ends the
    /// exchange when it returns false (a first-token limit, a cancellation).
    public func send(received: @escaping ([UInt8]) -> Bool = { _ in true }, keepGoing: @escaping () -> Bool = { true }) -> Answer {
        guard Self.ready, let curl = curl_easy_init() else { return Answer(status: 0, error: "libcurl could not start") }
        defer { curl_easy_cleanup(curl) }
        var list: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(list) }
        var mime: OpaquePointer?
        defer { curl_mime_free(mime) }
        let sink = Sink(received: received, keepGoing: keepGoing)
        let context = Unmanaged.passUnretained(sink).toOpaque()
        return withExtendedLifetime(sink) {
            _ = lookd_curl_set_pointer(curl, CURLOPT_URL, url)
            _ = lookd_curl_set_pointer(curl, CURLOPT_PROTOCOLS_STR, "http,https")
            _ = lookd_curl_set_long(curl, CURLOPT_NOSIGNAL, 1)
            _ = lookd_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT_MS, Int(connectLimit * 1000))
            _ = lookd_curl_set_long(curl, CURLOPT_TIMEOUT_MS, Int(timeLimit * 1000))
            _ = lookd_curl_set_pointer(curl, CURLOPT_USERAGENT, "lookd")
            _ = lookd_curl_set_pointer(curl, CURLOPT_WRITEDATA, context)
            _ = lookd_curl_set_write(curl) { data, size, count, context in
                guard let data, let context else { return 0 }
                let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
                let bytes = [UInt8](UnsafeRawBufferPointer(start: data, count: size * count))
                guard sink.received(bytes), sink.keepGoing() else {
                    sink.cut = true
                    return 0
                }
                return size * count
            }
            _ = lookd_curl_set_pointer(curl, CURLOPT_XFERINFODATA, context)
            _ = lookd_curl_set_progress(curl) { context, _, _, _, _ in
                guard let context else { return 0 }
                let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
                if sink.keepGoing() { return 0 }
                sink.cut = true
                return 1
            }
            _ = lookd_curl_set_long(curl, CURLOPT_NOPROGRESS, 0)
            switch body {
            case .bytes(let bytes, let type):
                list = curl_slist_append(list, "Content-Type: \(type)")
                _ = lookd_curl_set_size(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
                _ = bytes.withUnsafeBytes { lookd_curl_set_pointer(curl, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
            case .multipart(let parts):
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
            for (name, value) in headers { list = curl_slist_append(list, "\(name): \(value)") }
            // No "Expect: 100-continue" wait on larger bodies.
            list = curl_slist_append(list, "Expect:")
            _ = lookd_curl_set_pointer(curl, CURLOPT_HTTPHEADER, UnsafeRawPointer(list))
            let code = curl_easy_perform(curl)
            let status = Int(lookd_curl_response_code(curl))
            if sink.cut && (code == CURLE_WRITE_ERROR || code == CURLE_ABORTED_BY_CALLBACK) { return Answer(status: status, error: "cut short") }
            guard code == CURLE_OK else { return Answer(status: status, error: String(cString: curl_easy_strerror(code))) }
            return Answer(status: status, error: nil)
        }
    }

    private final class Sink {
        let received: ([UInt8]) -> Bool
        let keepGoing: () -> Bool
        var cut = false
        init(received: @escaping ([UInt8]) -> Bool, keepGoing: @escaping () -> Bool) {
            self.received = received
            self.keepGoing = keepGoing
        }
    }
}
