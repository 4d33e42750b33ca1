import Foundation
import LookCore

/// A chat completion as a server streams it (server-sent events, each a JSON chunk): the text so far,
/// its first token's time, its finish, its token counts, and why it went wrong, if it did. The remote
/// engine feeds it the bytes as they come (`take`) and asks it, once the request is over, what the
/// answer was (`conclude`).
struct StreamedAnswer {
    var text = ""
    var first: Double?
    var finish: String?
    var promptTokens: Int?
    var outputTokens = 0
    var problem: String?
    /// A server that streams without end is cut at the answer's token bound, as max_tokens asks.
    var capped = false
    /// The first token did not come within its limit.
    var firstTokenLate = false
    private var reader = EventStreamReader()
    private var raw: [UInt8] = []
    private var events = 0
    private var pieces = 0

    /// Takes the bytes that came; whether the stream is to go on.
    mutating func take(_ bytes: [UInt8], maxTokens: Int, elapsed: () -> Double, onText: (String) -> Void) -> Bool {
        if raw.count < RemoteEngine.wholeAnswerLimit { raw += bytes.prefix(RemoteEngine.wholeAnswerLimit - raw.count) }
        guard let data = reader.take(bytes) else {
            problem = "the server sent a line of over \(EventStreamReader.lineLimit >> 10) KB"
            return false
        }
        for data in data {
            events += 1
            if data == "[DONE]" { continue }
            guard let object = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any] else {
                problem = "the server sent something that is not JSON: \(data.prefix(120))"
                return false
            }
            if let error = object["error"] {
                problem = "the server: \(RemoteEngine.describe(error))"
                return false
            }
            if let usage = object["usage"] as? [String: Any] {
                promptTokens = usage["prompt_tokens"] as? Int
                outputTokens = usage["completion_tokens"] as? Int ?? outputTokens
            }
            guard let choice = (object["choices"] as? [[String: Any]])?.first else { continue }
            if let reason = choice["finish_reason"] as? String { finish = reason }
            if let piece = (choice["delta"] as? [String: Any])?["content"] as? String, !piece.isEmpty {
                guard add(piece, maxTokens: maxTokens, elapsed: elapsed, onText: onText) else { return false }
            }
        }
        return true
    }

    /// A piece of the answer; whether it was within the answer's bounds.
    private mutating func add(_ piece: String, maxTokens: Int, elapsed: () -> Double, onText: (String) -> Void) -> Bool {
        // A piece past the token bound is a server that streams without end: cut there. At the
        // bound itself the stream goes on, for its finish and usage.
        guard pieces < maxTokens else {
            (capped, finish) = (true, finish ?? "length")
            return false
        }
        if first == nil { first = elapsed() }
        // So is an answer past its byte bound, however few its pieces.
        guard text.utf8.count + piece.utf8.count <= RemoteEngine.answerLimit else {
            let kept = RemoteEngine.bounded(text + piece)
            onText(String(kept.dropFirst(text.count)))
            (text, capped, finish) = (kept, true, finish ?? "length")
            return false
        }
        text += piece
        onText(piece)
        pieces += 1
        return true
    }

    /// What went wrong once the request is over (`status` and `error` the request's), if nothing
    /// did while it streamed: a late first token, a stop, an HTTP error, a page that is not a chat
    /// completion, an answer cut short. A server that ignored `stream: true` is read whole here.
    mutating func conclude(
        status: Int, error: String?, cancellation: Cancellation?, settings: RemoteEngine.Settings, elapsed: () -> Double,
        onText: (String) -> Void
    ) {
        guard problem == nil && !capped else { return }
        let body = String(decoding: raw, as: UTF8.self)
        if firstTokenLate {
            problem = "no first token within \(Quantity.number(settings.firstTokenLimit)) s"
        } else if first == nil && cancellation?.isWindingDown == true && cancellation?.isCancelled != true {
            problem = "lookd is stopping: the question was not answered"
        } else if status != 0 && status != 200 {
            problem = "HTTP \(status): \(RemoteEngine.describe(body))"
        } else if let error, cancellation?.isCancelled != true {
            problem = error
        } else if events == 0, status == 200, let whole = RemoteEngine.wholeAnswer(body) {
            (text, finish, promptTokens, outputTokens) = (RemoteEngine.bounded(whole.text), whole.finish, whole.promptTokens, whole.outputTokens)
            if !text.isEmpty {
                first = elapsed()
                onText(text)
            }
        } else if events == 0, RemoteEngine.isWebPage(body) {
            problem = "the server answered with a web page, not a chat completion (is \(Secrets.outbound(url: settings.url)) the server's /v1?)"
        } else if finish == nil && cancellation?.isCancelled != true {
            problem = text.isEmpty && raw.isEmpty ? "the server closed the connection without an answer" : "the answer stopped before its end"
        }
    }
}
