import Foundation
import HTTP
import LookCore

/// `--engine URL`: an OpenAI-compatible server (llama-server, vLLM, Ollama) answers instead of the
/// in-process model. Each question is one `POST {URL}/chat/completions`: the picture as a JPEG data
/// URL, the same prompt, temperature 0, `max_tokens`, streamed, so the first token is timed as
/// in-process. A server that is slow, down or answering errors fails the question with the reason
/// (each try has its limits, and a try that got no text is tried again); the watch records the frame
/// as failed and goes on.
public final class RemoteEngine: VisionLanguageModel, @unchecked Sendable {
    public struct Settings: Sendable {
        /// The server's base URL, up to `/v1` (`http://gpu-box:8080/v1`).
        public var url: String
        /// The server's name for the model.
        public var model: String
        /// `LOOKD_API_KEY`, sent as `Authorization: Bearer`.
        public var apiKey: String?
        /// Seconds: to connect; from the request to the first token; for the whole answer.
        public var connectLimit = 5.0
        public var firstTokenLimit = 60.0
        public var timeLimit = 300.0
        /// Tries of a question that got no text, and the pause before the second (doubled after).
        public var attempts = 3
        /// How many questions may be in flight at once; nil: as many as the server has slots.
        public var parallel: Int?
        public var backoff = 1.0

        /// `URL/path`, with the URL's query (`?api-version=…`) kept after the path, where it belongs.
        public func endpoint(_ path: String) -> String {
            guard let q = url.firstIndex(of: "?") else { return url + "/" + path }
            let base = url[..<q].hasSuffix("/") ? String(url[..<q].dropLast()) : String(url[..<q])
            return base + "/" + path + url[q...]
        }

        /// The URL is outbound: whatever is written from now on shows it as scheme, host and port.
        public init(url: String, model: String, apiKey: String? = nil) {
            self.url = url.hasSuffix("/") ? String(url.dropLast()) : url
            Secrets.registerOutbound(url)
            self.model = model
            self.apiKey = apiKey
        }

        /// A URL that is not an http(s) server's, in words.
        public struct BadURL: Error, Sendable {
            public let text: String
        }

        /// Settings for `url` (http or https, with a host), or why it cannot be one; an empty key is none.
        public static func parse(url: String, model: String, apiKey: String?) -> Result<Settings, BadURL> {
            guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), ["http", "https"].contains(scheme),
                parts.host?.isEmpty == false
            else {
                return .failure(BadURL(text: "\(SettingName.engine) takes the server's URL up to /v1, like http://gpu-box:8080/v1, not \"\(url)\""))
            }
            return .success(Settings(url: url, model: model, apiKey: apiKey.flatMap { $0.isEmpty ? nil : $0 }))
        }
    }

    public let settings: Settings
    /// How a picture travels: its bytes and their media type (lookd: JPEG through Media's writer,
    /// as the VLM module has no FFmpeg).
    public typealias PictureEncoder = @Sendable (RGBImage) throws -> (bytes: [UInt8], type: String)
    private let picture: PictureEncoder

    /// The clock the requests are timed and the retries wait on.
    let clock: any Clock

    public init(settings: Settings, clock: any Clock, picture: @escaping PictureEncoder) {
        self.settings = settings
        self.picture = picture
        self.clock = clock
    }

    public var engineName: String { "remote · \(settings.model) @ \(server)" }

    /// `host:port` of the server.
    public var server: String {
        let host = URLComponents(string: settings.url)?.host ?? settings.url
        let port = URLComponents(string: settings.url)?.port.map { ":\($0)" } ?? ""
        return host + port
    }

    public var place: String { "server · \(server)" }

    /// A server's outages end no watch: it is asked again, with backoff.
    public var endsRunAfterFailures: Bool { false }

    final class Picture {
        let dataURL: String
        let bytes: Int
        init(dataURL: String, bytes: Int) {
            self.dataURL = dataURL
            self.bytes = bytes
        }
    }

    /// The picture as a data URL (JPEG), made once and sent with each question about it.
    public func encode(_ image: RGBImage) throws -> EncodedImage {
        let started = clock.now()
        let (bytes, type) = try picture(image)
        let url = "data:\(type);base64," + Data(bytes).base64EncodedString()
        return EncodedImage(
            image: image, encodeSeconds: clock.now() - started, tokenCount: 0, payload: Picture(dataURL: url, bytes: bytes.count))
    }

    /// Every try's limits and the pauses between them, and a little more.
    public var longestWait: Double {
        let tries = Double(max(1, settings.attempts))
        let pauses = (0..<max(0, settings.attempts - 1)).reduce(0.0) { $0 + settings.backoff * pow(2, Double($1)) }
        return tries * (settings.connectLimit + settings.timeLimit) + pauses + 10
    }

    public func generate(
        image: EncodedImage, prompt: String, maxTokens: Int, cancellation: Cancellation?, onText: (String) -> Void
    ) throws -> Generation {
        let picture = try (image.payload as? Picture) ?? (encode(image.image).payload as! Picture)
        var lastError = "no answer"
        var tried = 0
        for attempt in 1...max(1, settings.attempts) {
            // A stop cuts the retries and their backoff: the service's stop limit is not waited out.
            if attempt > 1 {
                if cancellation?.isWindingDown == true { break }
                pause(settings.backoff * pow(2, Double(attempt - 2)), unless: cancellation)
            }
            if cancellation?.isWindingDown == true && attempt > 1 { break }
            if cancellation?.isCancelled == true { break }
            tried += 1
            let result = ask(picture, prompt: prompt, maxTokens: maxTokens, cancellation: cancellation, onText: onText)
            switch result {
            case .success(let generation): return generation
            case .failure(let failure):
                lastError = failure.reason
                // Text already handed on cannot be taken back: a break mid-answer is not tried again.
                if failure.gotText || !failure.retry { throw VLMError.remote(reason: failure.reason) }
            }
        }
        // The tries made, not those allowed: a stop cuts them short.
        throw VLMError.remote(reason: tried > 1 ? "\(lastError) (after \(tried) tries)" : lastError)
    }

    struct Failure: Error {
        var reason: String
        var retry: Bool
        var gotText: Bool
    }

    /// Waits `seconds` in slices, cut short by a stop.
    private func pause(_ seconds: Double, unless cancellation: Cancellation?) {
        clock.wait(upTo: seconds, every: 0.05) { cancellation?.isWindingDown == true }
    }

    /// The most bytes of an answer that is one JSON object (a server that ignores `stream: true`).
    static let wholeAnswerLimit = 1 << 20
    /// The most bytes of an answer's text, whatever the server sends: past it the answer is cut (as
    /// at its token bound), so what lookd records of an answer is bounded too.
    public static let answerLimit = 64 << 10

    /// `text` cut to `answerLimit` bytes (at a character's boundary).
    static func bounded(_ text: String) -> String {
        guard text.utf8.count > answerLimit else { return text }
        var cut = text.utf8.prefix(answerLimit)
        while String(cut) == nil { cut = cut.dropLast() }
        return String(cut)!
    }

    /// The request's JSON.
    func body(_ picture: Picture, prompt: String, maxTokens: Int) -> [UInt8] {
        let message = JSON.object([
            ("role", .string("user")),
            (
                "content",
                .array([
                    .object([("type", .string("image_url")), ("image_url", .object([("url", .string(picture.dataURL))]))]),
                    // A line break after the picture, as lookd's own chat form has it (ChatTemplate), so a
                    // ChatML server builds the same prompt as the in-process engine.
                    .object([("type", .string("text")), ("text", .string("\n" + prompt))]),
                ])
            ),
        ])
        let json = JSON.object([
            ("model", .string(settings.model)), ("messages", .array([message])), ("temperature", .int(0)), ("max_tokens", .int(maxTokens)),
            ("stream", .bool(true)), ("stream_options", .object([("include_usage", .bool(true))])),
        ])
        return Array(json.text().utf8)
    }

    /// One try: the streamed answer, or why it failed.
    private func ask(_ picture: Picture, prompt: String, maxTokens: Int, cancellation: Cancellation?, onText: (String) -> Void) -> Result<
        Generation, Failure
    > {
        let clock = self.clock
        let started = clock.now()
        var headers: [(String, String)] = [("Accept", "text/event-stream")]
        if let key = settings.apiKey { headers.append(("Authorization", "Bearer \(key)")) }
        let request = HTTPRequest(
            url: settings.endpoint("chat/completions"), body: .bytes(body(picture, prompt: prompt, maxTokens: maxTokens), type: "application/json"),
            headers: headers, connectLimit: settings.connectLimit, timeLimit: settings.timeLimit)
        var answer = StreamedAnswer()
        let elapsed = { clock.now() - started }
        withoutActuallyEscaping(onText) { onText in
            let sent = request.send(
                received: { answer.take($0, maxTokens: maxTokens, elapsed: elapsed, onText: onText) },
                keepGoing: {
                    if cancellation?.isCancelled == true { return false }
                    // A stop gives up on a question that has no answer yet: nothing is lost.
                    if answer.first == nil && cancellation?.isWindingDown == true { return false }
                    if answer.first == nil && elapsed() > self.settings.firstTokenLimit {
                        answer.firstTokenLate = true
                        return false
                    }
                    return true
                })
            answer.conclude(
                status: sent.status, error: sent.error, cancellation: cancellation, settings: settings, elapsed: elapsed, onText: onText)
        }
        if let problem = answer.problem {
            // A 4xx (a wrong model name, a bad request) gets the same answer again.
            let status = Int(problem.dropFirst(5).prefix(3)) ?? 0
            return .failure(Failure(reason: problem, retry: !(400..<500).contains(status) || status == 429, gotText: !answer.text.isEmpty))
        }
        let stop: StopReason = cancellation?.isCancelled == true ? .cancelled : answer.finish == "length" ? .tokenLimit : .endOfText
        let timings = GenerationTimings(
            firstToken: answer.first, total: elapsed(), imageEncode: 0, inputTokens: answer.promptTokens ?? 0,
            outputTokens: answer.outputTokens > 0 ? answer.outputTokens : (answer.text.isEmpty ? 0 : 1))
        return .success(Generation(text: answer.text, stop: stop, timings: timings))
    }

    /// A whole chat completion (`choices[0].message.content`), as a server that does not stream sends it.
    static func wholeAnswer(_ body: String) -> (text: String, finish: String?, promptTokens: Int?, outputTokens: Int)? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
            let choice = (object["choices"] as? [[String: Any]])?.first,
            let text = (choice["message"] as? [String: Any])?["content"] as? String
        else { return nil }
        let usage = object["usage"] as? [String: Any]
        return (text, choice["finish_reason"] as? String ?? "stop", usage?["prompt_tokens"] as? Int, usage?["completion_tokens"] as? Int ?? 0)
    }

    /// Whether an answer is an HTML page (a web server's, a proxy's login) rather than an API's.
    static func isWebPage(_ body: String) -> Bool {
        let start = body.drop { $0.isWhitespace }.prefix(256).lowercased()
        return start.hasPrefix("<!doctype html") || start.hasPrefix("<html") || start.contains("<head")
    }

    /// A server's error in a line: its `message` when it has one.
    static func describe(_ error: Any) -> String {
        if let object = error as? [String: Any] {
            if let message = object["message"] as? String { return message }
            if let inner = object["error"] { return describe(inner) }
        }
        if let text = error as? String {
            if let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) { return describe(object) }
            return String(text.prefix(200)).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return "\(error)"
    }
}

/// Server-sent events, read as bytes arrive: the `data:` of each event. Each byte is looked at once
/// (a line's end is searched for only in what came since the last look), and a line is bounded.
struct EventStreamReader {
    /// The longest line taken: one event of a chat completion is a few hundred bytes.
    static let lineLimit = 1 << 20
    private var pending: [UInt8] = []
    private var scanned = 0
    private var data: [String] = []
    /// Bytes of the event being read (its `data:` lines so far).
    private var held = 0

    /// The events completed by `bytes`; nil when a line grew past `lineLimit`.
    mutating func take(_ bytes: [UInt8]) -> [String]? {
        pending += bytes
        var events: [String] = []
        var start = 0
        while let newline = pending[(start + scanned)...].firstIndex(of: 0x0A) {
            var line = String(decoding: pending[start..<newline], as: UTF8.self)
            start = newline + 1
            scanned = 0
            if line.hasSuffix("\r") { line.removeLast() }
            if line.isEmpty {
                if !data.isEmpty { events.append(data.joined(separator: "\n")) }
                (data, held) = ([], 0)
            } else if line.hasPrefix("data:") {
                data.append(String(line.dropFirst(5)).trimmingCharacters(in: .whitespaces))
                held += line.utf8.count
            }
        }
        pending.removeFirst(start)
        scanned = pending.count
        return pending.count + held > Self.lineLimit ? nil : events
    }
}
