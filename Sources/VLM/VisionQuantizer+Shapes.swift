internal import CLlama
import Foundation
import LookCore
import Platform

/// Which tensors a copy quantizes and the shapes it stores them in (a padded feed-forward keeps its
/// widened shape), and whether a file can have a copy at all.
extension VisionQuantizer {
    /// The size and modification time (whole seconds) of `path`, as a copy records them.
    public static func stamp(of path: String) -> (size: Int64, mtime: Int64)? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return (Int64(st.st_size), Int64(st.st_mtim.tv_sec))
    }

    /// The feed-forwards whose down matrix is padded: each one's name prefix (`v.blk.0.`), its width
    /// and its padded width. Their up matrix gains zero rows and their up bias zeros to that width,
    /// so the activation comes out padded with zeros (every activation lookd's graphs use maps 0 to
    /// 0) and llama.cpp's pad of the input (tools/patches/mtmd-clip-ffn-pad.patch, a copy of the
    /// whole activation at every layer) has nothing left to do.
    static func widenedFeedForwards(_ tensors: [(name: String, type: ggml_type, ne: [Int64])], pads: Bool) -> [String: (Int64, Int64)] {
        var out: [String: (Int64, Int64)] = [:]
        for t in tensors where t.name.hasSuffix("ffn_down.weight") {
            if let row = q8Row(name: t.name, type: t.type, ne: t.ne, pads: pads), row != t.ne[0] {
                out[String(t.name.dropLast("ffn_down.weight".count))] = (t.ne[0], row)
            }
        }
        return out
    }

    /// The shape a tensor is stored with: an up matrix or bias of a widened feed-forward padded to
    /// its width, every other as `ne`.
    static func storedShape(name: String, ne: [Int64], widened: [String: (Int64, Int64)]) -> [Int64] {
        for (prefix, (width, padded)) in widened where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            if rest == "ffn_up.weight", ne[1] == width { return [ne[0], padded] + ne.dropFirst(2) }
            if rest == "ffn_up.bias", ne[0] == width { return [padded] + ne.dropFirst() }
        }
        return ne
    }

    /// Whether a copy of the file with `header` may pad its down matrices: this build pads their
    /// inputs, in the MiniCPM-V graphs, whose every `ffn_down` goes through that padding.
    static func padsDown(_ header: GGUFHeader) -> Bool {
        let key = gguf_find_key(header.pointer, "clip.projector_type")
        guard lookd_llama_ffn_pad() != 0, key >= 0, gguf_get_kv_type(header.pointer, key) == GGUF_TYPE_STRING else { return false }
        return String(cString: gguf_get_val_str(header.pointer, key)).hasPrefix("minicpmv")
    }

    /// The row length the tensor `name` of `type` and shape `ne` has as Q8_0 (its own, or padded to
    /// whole blocks where `pads`), or nil when it is kept as it is.
    static func q8Row(name: String, type: ggml_type, ne: [Int64], pads: Bool) -> Int64? {
        guard [GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16].contains(type) else { return nil }
        guard name.hasSuffix(".weight"), ne.count == 4, ne[1] > 1, ne[2] == 1, ne[3] == 1 else { return nil }
        guard !["embd", "embed", "query", "pos_"].contains(where: { name.contains($0) }) else { return nil }
        if ne[0] % 32 == 0 { return ne[0] }
        return pads && name.hasSuffix("ffn_down.weight") ? (ne[0] + 31) / 32 * 32 : nil
    }

    /// How many matrices of `path` a copy would make Q8_0 (0: nothing to gain: it is int8 already,
    /// or has no such matrices); nil when gguf cannot read it.
    public static func eligible(_ path: String) -> Int? {
        guard let header = GGUFHeader(path: path) else { return nil }
        let pads = padsDown(header)
        return (0..<Int(gguf_get_n_tensors(header.pointer))).filter { i in
            let ne = gguf_get_tensor_ne(header.pointer, Int64(i))!
            return q8Row(
                name: String(cString: gguf_get_tensor_name(header.pointer, Int64(i))), type: gguf_get_tensor_type(header.pointer, Int64(i)),
                ne: (0..<4).map { ne[$0] }, pads: pads) != nil
        }.count
    }
}
