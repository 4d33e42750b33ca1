internal import CLlama
import Foundation
import LookCore

/// What a MiniCPM-V 4.7 language model needs to be fed canvas positions: its token embedding rows
/// (every position goes in as an embedding, so that each carries its own four positions) and the
/// marker tokens the layout is anchored on.
final class CanvasSupport: @unchecked Sendable {
    let embeddings: TokenEmbeddings
    let markers: CanvasPositions.Markers

    init(modelPath: String, width: Int, tokenize: (String) -> [llama_token]) throws(VLMError) {
        embeddings = try TokenEmbeddings(path: modelPath, width: width)
        func one(_ text: String) throws(VLMError) -> Int32 {
            let t = tokenize(text)
            guard t.count == 1 else {
                throw .modelLoadFailed(
                    path: modelPath, reason: "its vocabulary has no single \(text.debugDescription) token for MiniCPM-V 4.7's canvas")
            }
            return t[0]
        }
        markers = CanvasPositions.Markers(
            imageStart: try one("<image>"), imageEnd: try one("</image>"), sliceStart: try one("<slice>"),
            sliceEnd: try one("</slice>"), newline: try one("\n"))
    }
}

/// The language model's input embedding rows (`token_embd.weight`), read from the GGUF file and
/// turned to floats with ggml's own dequantizer.
final class TokenEmbeddings: @unchecked Sendable {
    let width: Int
    private let file: FileHandle
    private let offset: UInt64
    private let rowBytes: Int
    private let type: ggml_type
    private let rows: Int
    /// Rows already read (the watch prompt's tokens come back every frame); at most `cacheLimit`.
    private var cache: [llama_token: [Float]] = [:]
    static let cacheLimit = 4096
    private let lock = NSLock()

    init(path: String, width: Int) throws(VLMError) {
        let params = gguf_init_params(no_alloc: true, ctx: nil)
        guard let gguf = gguf_init_from_file(path, params) else { throw .modelLoadFailed(path: path, reason: "its tensors cannot be listed") }
        defer { gguf_free(gguf) }
        let index = gguf_find_tensor(gguf, "token_embd.weight")
        guard index >= 0 else { throw .modelLoadFailed(path: path, reason: "it has no token_embd.weight") }
        type = gguf_get_tensor_type(gguf, index)
        rowBytes = Int(ggml_row_size(type, Int64(width)))
        rows = Int(gguf_get_tensor_size(gguf, index)) / max(rowBytes, 1)
        offset = UInt64(gguf_get_data_offset(gguf) + gguf_get_tensor_offset(gguf, index))
        self.width = width
        guard type == GGML_TYPE_F32 || ggml_get_type_traits(type)?.pointee.to_float != nil,
            let handle = FileHandle(forReadingAtPath: path)
        else {
            throw .modelLoadFailed(path: path, reason: "its token embeddings (\(String(cString: ggml_type_name(type)))) cannot be read")
        }
        file = handle
    }

    /// The embedding of `token`.
    func row(_ token: llama_token) throws(VLMError) -> [Float] {
        if let row = lock.withLock({ cache[token] }) { return row }
        guard token >= 0, Int(token) < rows else { throw .decodeFailed(code: -1) }
        let bytes: Data
        do {
            try file.seek(toOffset: offset + UInt64(Int(token) * rowBytes))
            bytes = try file.read(upToCount: rowBytes) ?? Data()
        } catch {
            throw .decodeFailed(code: -1)
        }
        guard bytes.count == rowBytes else { throw .decodeFailed(code: -1) }
        var out = [Float](repeating: 0, count: width)
        bytes.withUnsafeBytes { raw in
            out.withUnsafeMutableBufferPointer { dst in
                if type == GGML_TYPE_F32 {
                    _ = memcpy(dst.baseAddress!, raw.baseAddress!, width * 4)
                } else {
                    ggml_get_type_traits(type)!.pointee.to_float!(raw.baseAddress!, dst.baseAddress!, Int64(width))
                }
            }
        }
        lock.withLock {
            if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) } // bounded: a service runs for months
            cache[token] = out
        }
        return out
    }
}

/// Feeds a question with MiniCPM-V 4.7's canvas positions: every position as an embedding with four
/// positions, slot 0 its index (what the KV cache keeps, strictly increasing), slots 1 and 2 its h
/// and w, slot 3 its t (lookd's llama.cpp patch reads t there). Answer tokens go on from the
/// layout's delta.
struct CanvasReader: PromptFeeder {
    let engine: LlamaEngine
    let canvas: CanvasSupport
    /// Test hook: plain sequential positions instead of the canvas (the tests show they do not match).
    var sequential = false
    private var index = 0
    private var delta = 0
    /// The prompt as fed: token ids, -1 for a picture's positions (what the tests compare).
    private(set) var layout: [Int32] = []

    init(engine: LlamaEngine, canvas: CanvasSupport, sequential: Bool = false) {
        self.engine = engine
        self.canvas = canvas
        self.sequential = sequential
    }

    /// The prompt as canvas items, with the positions' embeddings one after another.
    private func items(before: [llama_token], pieces: [ImagePieces.Piece], after: [llama_token]) throws(FeedFailure)
        -> (items: [CanvasPositions.Item], embeddings: [Float])
    {
        var items: [CanvasPositions.Item] = []
        var rows: [Float] = []
        let width = canvas.embeddings.width
        func text(_ tokens: [llama_token]) throws(FeedFailure) {
            for t in tokens {
                items.append(.text(t))
                do { rows += try canvas.embeddings.row(t) } catch { throw .failed(-1) }
            }
        }
        try text(before)
        var crop = 0
        for piece in pieces {
            switch piece {
            case .text(let tokens): try text(tokens)
            case .image(let chunk, let embeddings):
                let image = mtmd_input_chunk_get_tokens_image(chunk)
                let nx = Int(mtmd_image_tokens_get_nx(image)), ny = Int(mtmd_image_tokens_get_ny(image))
                let count = embeddings.count / width
                guard nx * ny == count else { throw .failed(-2) }
                items += Array(repeating: .image(crop: crop, grid: (ny, nx)), count: count)
                rows += embeddings
                crop += 1
            }
        }
        try text(after)
        return (items, rows)
    }

    mutating func prompt(before: [llama_token], pieces: [ImagePieces.Piece], after: [llama_token]) throws(FeedFailure) {
        let (items, embeddings) = try self.items(before: before, pieces: pieces, after: after)
        layout = items.map { item -> Int32 in
            if case .text(let t) = item { return t }; return -1
        }
        var positions: [CanvasPositions.Position]
        if sequential {
            positions = (0..<items.count).map { CanvasPositions.Position(t: $0, h: $0, w: $0) }
            delta = 0
        } else {
            (positions, delta) = CanvasPositions.layout(items, markers: canvas.markers, mergeFactor: 1)
        }
        let size = engine.options.batchSize
        var start = 0
        let width = canvas.embeddings.width
        while start < items.count {
            let end = min(start + size, items.count)
            try feed(
                Array(embeddings[(start * width)..<(end * width)]), positions: Array(positions[start..<end]), first: start,
                logitsLast: end == items.count)
            start = end
        }
        index = items.count
    }

    mutating func more(_ tokens: [llama_token]) throws(FeedFailure) {
        var rows: [Float] = []
        for token in tokens {
            do { rows += try canvas.embeddings.row(token) } catch { throw .failed(-1) }
        }
        let positions = tokens.indices.map { i in
            let p = index + delta + i
            return CanvasPositions.Position(t: p, h: p, w: p)
        }
        try feed(rows, positions: positions, first: index, logitsLast: true)
        index += tokens.count
    }

    /// One llama batch of embeddings with four positions each (section-major, as llama.cpp reads them).
    private func feed(_ embeddings: [Float], positions: [CanvasPositions.Position], first: Int, logitsLast: Bool) throws(FeedFailure) {
        let n = positions.count
        var embd = embeddings
        var pos = [llama_pos](repeating: 0, count: n * 4)
        for (i, p) in positions.enumerated() {
            pos[i] = llama_pos(first + i)
            pos[n + i] = llama_pos(p.h)
            pos[2 * n + i] = llama_pos(p.w)
            pos[3 * n + i] = llama_pos(p.t)
        }
        var counts = [Int32](repeating: 1, count: n)
        var seq: llama_seq_id = 0
        var output = [Int8](repeating: 0, count: n)
        if logitsLast { output[n - 1] = 1 }
        let rc: Int32 = withUnsafeMutablePointer(to: &seq) { seqPointer in
            var seqIds = [UnsafeMutablePointer<llama_seq_id>?](repeating: seqPointer, count: n)
            return embd.withUnsafeMutableBufferPointer { e in
                pos.withUnsafeMutableBufferPointer { p in
                    counts.withUnsafeMutableBufferPointer { c in
                        seqIds.withUnsafeMutableBufferPointer { s in
                            output.withUnsafeMutableBufferPointer { o in
                                let batch = llama_batch(
                                    n_tokens: Int32(n), token: nil, embd: e.baseAddress, pos: p.baseAddress,
                                    n_seq_id: c.baseAddress, seq_id: s.baseAddress, logits: o.baseAddress)
                                return llama_decode(engine.context, batch)
                            }
                        }
                    }
                }
            }
        }
        if rc == 2 || engine.abortFlag.isSet { throw .aborted }
        guard rc == 0 else { throw .failed(rc) }
    }
}

extension LlamaEngine {
    /// The prompt's positions as the model gets them (token ids; -1 for a picture's) and the logits
    /// after the last one, with canvas positions or, `sequential`, plain ones: what the tests compare
    /// with transformers. Only for a model fed canvas positions.
    func promptLogits(image: EncodedImage, prompt: String, sequential: Bool = false) throws -> (layout: [Int32], logits: [Float]) {
        lock.lock()
        defer { lock.unlock() }
        guard let canvas, let pieces = (image.payload as? ImagePieces)?.pieces else { throw VLMError.decodeFailed(code: -3) }
        llama_memory_clear(llama_get_memory(context), true)
        let (before, after) = template.wrap(prompt)
        var reader = CanvasReader(engine: self, canvas: canvas, sequential: sequential)
        try reader.prompt(before: tokenize(before), pieces: pieces, after: tokenize(after))
        guard let logits = llama_get_logits_ith(context, -1) else { throw VLMError.decodeFailed(code: -5) }
        return (reader.layout, Array(UnsafeBufferPointer(start: logits, count: Int(llama_vocab_n_tokens(vocab)))))
    }
}
