internal import CLlama
import Foundation
import LookCore

extension LlamaEngine {
    public func generate(
        image: EncodedImage, prompt: String, maxTokens: Int,
        cancellation: Cancellation?, onText: (String) -> Void
    ) throws -> Generation {
        lock.lock()
        defer { lock.unlock() }
        abortFlag.watch(cancellation)
        defer { abortFlag.watch(nil) }
        guard let question = try startQuestion(image: image, prompt: prompt, answerStart: [], clock: clock) else {
            return Generation(text: "", stop: .cancelled, timings: .none)
        }
        let inputTokens = question.inputTokens
        func timings(first: Double?, out: Int) -> GenerationTimings { question.timings(first: first, out: out, clock: clock) }
        var reader = question.reader
        let started = question.started

        // Answer, token by token, greedy.
        var text = ""
        var utf8 = UTF8Assembler()
        var firstToken: Double?
        var produced = 0
        var stop = StopReason.tokenLimit
        var piece = [CChar](repeating: 0, count: 256)
        answering: while produced < maxTokens {
            if cancellation?.isCancelled == true { stop = .cancelled; break }
            // Each answer token takes a place in the context; a full one ends the answer, whole.
            if inputTokens + produced + 1 >= options.contextSize { stop = .contextFull; break }
            let token = llama_sampler_sample(sampler, context, -1)
            if llama_vocab_is_eog(vocab, token) { stop = .endOfText; break }
            produced += 1
            if firstToken == nil { firstToken = clock.now() - started }
            let n = llama_token_to_piece(vocab, token, &piece, Int32(piece.count), 0, false)
            if n > 0 {
                let chunk = utf8.push(piece[0..<Int(n)].map { UInt8(bitPattern: $0) })
                if !chunk.isEmpty { text += chunk; onText(chunk) }
            }
            if produced == maxTokens { break }
            do {
                try reader.next(token)
            } catch {
                stop = try error.stopReason()
                break answering
            }
        }
        let rest = utf8.finish()
        if !rest.isEmpty { text += rest; onText(rest) }
        return Generation(text: text, stop: stop, timings: timings(first: firstToken, out: produced))
    }

    func tokenize(_ text: String) -> [llama_token] { Self.tokenize(text, vocab: vocab) }

    /// A question under way: its prompt read, the reader that goes on from there.
    struct Question {
        var reader: any PromptFeeder
        let inputTokens: Int
        let encodeSeconds: Double
        let started: Double

        func timings(first: Double?, out: Int, clock: any Clock) -> GenerationTimings {
            GenerationTimings(
                firstToken: first, total: clock.now() - started, imageEncode: encodeSeconds, inputTokens: inputTokens, outputTokens: out)
        }
    }

    /// Starts a question (with the lock held): the picture encoded here when another engine encoded
    /// it, a new session (no history), the chat's opening, the picture, the prompt, the assistant's
    /// turn and `answerStart` read, the last position's logits left for the answer. nil: stopped.
    func startQuestion(image: EncodedImage, prompt: String, answerStart: [llama_token], clock: any Clock) throws -> Question? {
        let started = clock.now()
        var encodeSeconds = 0.0
        var encoded = image
        if !(image.payload is ImagePieces) { // encoded by another engine: encode it here
            encoded = try encodeLocked(image.image)
            encodeSeconds = encoded.encodeSeconds
        }
        let pieces = (encoded.payload as! ImagePieces).pieces
        llama_memory_clear(llama_get_memory(context), true)
        llama_sampler_reset(sampler)
        let (before, after) = template.wrap(prompt)
        var reader: any PromptFeeder = canvas.map { CanvasReader(engine: self, canvas: $0) } ?? PromptReader(engine: self)
        let beforeTokens = tokenize(before)
        let afterTokens = tokenize(after) + answerStart
        let inputTokens = beforeTokens.count + encoded.tokenCount + afterTokens.count
        guard inputTokens + 1 < options.contextSize else {
            throw VLMError.promptTooLong(tokens: inputTokens, context: options.contextSize)
        }
        do {
            try reader.prompt(before: beforeTokens, pieces: pieces, after: afterTokens)
        } catch {
            _ = try error.stopReason()
            return nil
        }
        return Question(reader: reader, inputTokens: inputTokens, encodeSeconds: encodeSeconds, started: started)
    }

    public func inputTokens(prompt: String, width: Int, height: Int) -> (input: Int, context: Int)? {
        lock.lock()
        defer { lock.unlock() }
        let (before, after) = template.wrap(prompt)
        guard let picture = try? imageTokenCount(width: width, height: height) else { return nil }
        return (tokenize(before).count + picture + tokenize(after).count, options.contextSize)
    }

    /// `text` as tokens, special tokens (`<image>`, `<|im_start|>`) read as such.
    static func tokenize(_ text: String, vocab: OpaquePointer) -> [llama_token] {
        let count = Int32(text.utf8.count)
        var tokens = [llama_token](repeating: 0, count: Int(count) + 8)
        var n = llama_tokenize(vocab, text, count, &tokens, Int32(tokens.count), false, true)
        if n < 0 {
            tokens = [llama_token](repeating: 0, count: Int(-n))
            n = llama_tokenize(vocab, text, count, &tokens, Int32(tokens.count), false, true)
        }
        return Array(tokens.prefix(Int(max(n, 0))))
    }
}

enum FeedFailure: Error {
    case aborted, failed(Int32)

    /// Where an answer stops on it: an abort stops it (`cancelled`); a failed decode is the model's error.
    func stopReason() throws(VLMError) -> StopReason {
        switch self {
        case .aborted: return .cancelled
        case .failed(let code): throw .decodeFailed(code: code)
        }
    }
}

/// How a question reaches the context: the prompt (text, the picture's parts, text), then each
/// answer token; the logits of the last position fed are left for sampling.
protocol PromptFeeder {
    mutating func prompt(before: [llama_token], pieces: [ImagePieces.Piece], after: [llama_token]) throws(FeedFailure)
    /// Tokens after the prompt, in one batch; the last one's logits are left for sampling.
    mutating func more(_ tokens: [llama_token]) throws(FeedFailure)
}

extension PromptFeeder {
    mutating func next(_ token: llama_token) throws(FeedFailure) { try more([token]) }
}

extension LlamaEngine {
    /// Decodes `batch`; an abort or llama's "aborted" code is `.aborted`.
    func decode(_ batch: llama_batch) throws(FeedFailure) {
        let rc = llama_decode(context, batch)
        if rc == 2 || abortFlag.isSet { throw .aborted }
        guard rc == 0 else { throw .failed(rc) }
    }
}

/// Feeds prompt parts to the context at consecutive positions (libmtmd places a picture's tokens).
private struct PromptReader: PromptFeeder {
    typealias Failure = FeedFailure

    let engine: LlamaEngine
    var position: llama_pos = 0

    init(engine: LlamaEngine) { self.engine = engine }

    mutating func prompt(before: [llama_token], pieces: [ImagePieces.Piece], after: [llama_token]) throws(FeedFailure) {
        try text(before, logitsLast: false)
        for piece in pieces {
            switch piece {
            case .text(let tokens): try text(tokens, logitsLast: false)
            case .image(let chunk, let embeddings): try image(chunk, embeddings)
            }
        }
        try text(after, logitsLast: true)
    }

    mutating func more(_ tokens: [llama_token]) throws(FeedFailure) { try text(tokens, logitsLast: true) }

    mutating func text(_ tokens: [llama_token], logitsLast: Bool) throws(Failure) {
        guard !tokens.isEmpty else { return }
        let size = engine.options.batchSize
        var batch = llama_batch_init(Int32(size), 0, 1)
        defer { llama_batch_free(batch) }
        var start = 0
        while start < tokens.count {
            let end = min(start + size, tokens.count)
            batch.n_tokens = Int32(end - start)
            for (i, token) in tokens[start..<end].enumerated() {
                batch.token[i] = token
                batch.pos[i] = position + llama_pos(start + i)
                batch.n_seq_id[i] = 1
                batch.seq_id[i]![0] = 0
                batch.logits[i] = (logitsLast && start + i == tokens.count - 1) ? 1 : 0
            }
            try engine.decode(batch)
            start = end
        }
        position += llama_pos(tokens.count)
    }

    mutating func image(_ chunk: OpaquePointer, _ embeddings: [Float]) throws(Failure) {
        var next: llama_pos = 0
        var values = embeddings
        let rc = values.withUnsafeMutableBufferPointer {
            mtmd_helper_decode_image_chunk(
                engine.vision, engine.context, chunk, $0.baseAddress, position, 0,
                Int32(engine.options.batchSize), &next, nil, nil)
        }
        if engine.abortFlag.isSet { throw .aborted }
        guard rc == 0 else { throw .failed(rc) }
        position = next
    }
}
