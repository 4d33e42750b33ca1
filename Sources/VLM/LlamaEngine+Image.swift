internal import CLlama
import Foundation
import LookCore

/// A picture as libmtmd prepared it: the text tokens that frame it (`<image>`, `<slice>`, …) and,
/// for each image part, the vision tower's output. Kept so that more questions about the same
/// picture skip the vision tower.
final class ImagePieces {
    enum Piece {
        case text([llama_token])
        case image(chunk: OpaquePointer, embeddings: [Float])
    }

    let pieces: [Piece]

    init(pieces: [Piece]) { self.pieces = pieces }

    deinit {
        for case .image(let chunk, _) in pieces { mtmd_input_chunk_free(chunk) }
    }
}

extension LlamaEngine {
    public func encode(_ image: RGBImage) throws -> EncodedImage {
        lock.lock()
        defer { lock.unlock() }
        return try encodeLocked(image)
    }

    public func makeTowerCache(_ reuse: TowerReuse) -> (any TowerCache)? { LlamaTowerCache(owner: self, reuse: reuse) }

    /// A cache made by another engine is never used here: the picture is encoded whole.
    public func encode(_ image: RGBImage, cache: (any TowerCache)?) throws -> EncodedImage {
        lock.lock()
        defer { lock.unlock() }
        guard let own = cache as? LlamaTowerCache, own.owner === self else { return try encodeLocked(image) }
        return try encodeLocked(image, cache: own)
    }

    /// The tokens a picture of this size takes (libmtmd's slicing and framing), without running the
    /// vision tower. Called with the lock held.
    func imageTokenCount(width: Int, height: Int) throws(VLMError) -> Int {
        let chunks = try tokenizeImage(RGBImage(width: width, height: height, fill: (0, 0, 0)))
        defer { mtmd_input_chunks_free(chunks) }
        return (0..<mtmd_input_chunks_size(chunks)).reduce(0) { $0 + Int(mtmd_input_chunk_get_n_tokens(mtmd_input_chunks_get(chunks, $1)!)) }
    }

    /// libmtmd's parts for a picture (framing text and image chunks, not yet encoded); the caller frees them.
    private func tokenizeImage(_ image: RGBImage) throws(VLMError) -> OpaquePointer {
        guard
            let bitmap = image.pixels.withUnsafeBufferPointer({
                mtmd_bitmap_init(UInt32(image.width), UInt32(image.height), $0.baseAddress)
            })
        else { throw .imageFailed(reason: "libmtmd could not take a \(image.width) × \(image.height) picture") }
        defer { mtmd_bitmap_free(bitmap) }
        guard let chunks = mtmd_input_chunks_init() else { throw .imageFailed(reason: "out of memory") }
        let marker = String(cString: mtmd_default_marker())
        let rc = marker.withCString { cMarker -> Int32 in
            var text = mtmd_input_text(text: cMarker, text_len: strlen(cMarker), add_special: false, parse_special: true)
            var bitmaps: [OpaquePointer?] = [bitmap]
            return bitmaps.withUnsafeMutableBufferPointer { mtmd_tokenize(vision, chunks, &text, $0.baseAddress, 1) }
        }
        guard rc == 0 else {
            mtmd_input_chunks_free(chunks)
            throw .imageFailed(reason: "libmtmd could not prepare it (code \(rc))")
        }
        return chunks
    }

    func encodeLocked(_ image: RGBImage, cache: LlamaTowerCache? = nil) throws(VLMError) -> EncodedImage {
        let started = clock.now()
        let chunks = try tokenizeImage(image)
        defer { mtmd_input_chunks_free(chunks) }

        let width = Int(llama_model_n_embd_inp(model))
        var pieces: [ImagePieces.Piece] = []
        var tokens = 0
        var parts = 0
        var figures = cache.map { _ in TowerWork(computed: 0, tokens: 0, reused: false, keptBytes: 0) }
        for i in 0..<mtmd_input_chunks_size(chunks) {
            let chunk = mtmd_input_chunks_get(chunks, i)!
            tokens += Int(mtmd_input_chunk_get_n_tokens(chunk))
            switch mtmd_input_chunk_get_type(chunk) {
            case MTMD_INPUT_CHUNK_TYPE_TEXT:
                var n = 0
                let tokens = mtmd_input_chunk_get_tokens_text(chunk, &n)
                pieces.append(.text(Array(UnsafeBufferPointer(start: tokens, count: n))))
            case MTMD_INPUT_CHUNK_TYPE_IMAGE:
                let code = cache.map { $0.using(vision, part: parts) { mtmd_encode_chunk(vision, chunk) } } ?? mtmd_encode_chunk(vision, chunk)
                if let last = cache?.last(), var sum = figures {
                    (sum.computed, sum.tokens, sum.keptBytes) = (sum.computed + last.computed, sum.tokens + last.tokens, last.bytes)
                    sum.reused = sum.reused || last.reused
                    figures = sum
                }
                parts += 1
                guard code == 0, let out = mtmd_get_output_embd(vision) else {
                    throw .imageFailed(reason: "the vision tower failed (code \(code))")
                }
                let count = width * Int(mtmd_input_chunk_get_n_tokens(chunk))
                pieces.append(
                    .image(
                        chunk: mtmd_input_chunk_copy(chunk)!,
                        embeddings: Array(UnsafeBufferPointer(start: out, count: count))))
            default:
                throw .imageFailed(reason: "libmtmd returned a part that is not a picture")
            }
        }
        return EncodedImage(
            image: image, encodeSeconds: clock.now() - started, tokenCount: tokens,
            payload: ImagePieces(pieces: pieces), reuse: figures)
    }
}
