import Foundation
import LookCore

/// A model double that answers from a text file instead of looking (`--model script:FILE`), so rules
/// can be tried without a model, and tests can drive firing from outside the process.
///
/// The file: one answer per line, used in order, one line per question; `\n` in a line is a line
/// break; blank lines and lines starting with `#` are skipped; after the last line, the last line
/// answers every further question. The file is read again at every question, so lines appended
/// while lookd runs are used when their turn comes. A line `!fail REASON` makes that question fail
/// (how the tests show a watch living through failed model calls). A line `!wait S ANSWER` answers
/// ANSWER after S seconds, as a model that takes its time.
///
///     # three rules; the chessboard turns up on the third frame
///     1. No\n2. No\n3. No
///     1. No\n2. No\n3. No
///     1. Yes\n2. No\n3. No
public final class ScriptedModel: VisionLanguageModel, @unchecked Sendable {
    public let path: String
    public var engineName: String { "script · \((path as NSString).lastPathComponent)" }
    private let lock = NSLock()
    private var asked = 0

    /// The clock its answers are timed and its `!wait` lines wait on.
    let clock: any Clock

    public init(path: String, clock: any Clock) throws(VLMError) {
        self.clock = clock
        guard FileManager.default.fileExists(atPath: path) else { throw .fileMissing(role: "script", path: path) }
        self.path = path
    }

    /// How many questions it has answered.
    public var questions: Int { lock.withLock { asked } }

    public func encode(_ image: RGBImage) throws -> EncodedImage {
        EncodedImage(image: image, encodeSeconds: 0, tokenCount: 0)
    }

    public func generate(
        image: EncodedImage, prompt: String, maxTokens: Int,
        cancellation: Cancellation?, onText: (String) -> Void
    ) throws -> Generation {
        let started = clock.now()
        let index = lock.withLock { () -> Int in
            asked += 1; return asked - 1
        }
        let lines = Self.answers(in: (try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
        var answer = lines.isEmpty ? "" : lines[min(index, lines.count - 1)]
        if answer.hasPrefix("!wait ") {
            let words = answer.dropFirst(6).split(separator: " ", maxSplits: 1)
            if let seconds = words.first.flatMap({ Double($0) }), seconds > 0 {
                clock.wait(upTo: min(seconds, 3600), every: 0.005) { cancellation?.isCancelled == true }
            }
            answer = words.count > 1 ? String(words[1]) : ""
        }
        if answer.hasPrefix("!fail") { throw VLMError.scripted(reason: answer.dropFirst(5).trimmingCharacters(in: .whitespaces)) }
        // Stream word by word, like a model; a token per word.
        var text = ""
        var tokens = 0
        var first: Double?
        for piece in Self.pieces(answer) {
            if cancellation?.isCancelled == true {
                return Generation(text: text, stop: .cancelled, timings: timings(started, first, tokens, prompt))
            }
            if tokens == maxTokens { break }
            if first == nil { first = clock.now() - started }
            text += piece
            tokens += 1
            onText(piece)
        }
        let stop: StopReason = tokens == maxTokens && text.count < answer.count ? .tokenLimit : .endOfText
        return Generation(text: text, stop: stop, timings: timings(started, first, tokens, prompt))
    }

    private func timings(_ started: Double, _ first: Double?, _ out: Int, _ prompt: String) -> GenerationTimings {
        GenerationTimings(
            firstToken: first, total: clock.now() - started, imageEncode: 0,
            inputTokens: prompt.split(separator: " ").count, outputTokens: out)
    }

    /// The answer lines of a script.
    static func answers(in text: String) -> [String] {
        // Any line end: "\r\n" is one Character in Swift, so splitting at "\n" would not split it.
        text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            .map { $0.replacingOccurrences(of: "\\n", with: "\n") }
    }

    /// Splits an answer into word-sized pieces that join back to it.
    static func pieces(_ text: String) -> [String] {
        var out: [String] = []
        var current = ""
        for c in text {
            if c == " " || c == "\n", !current.isEmpty, current.last != " ", current.last != "\n" {
                out.append(current); current = ""
            }
            current.append(c)
        }
        if !current.isEmpty { out.append(current) }
        return out
    }
}
