internal import CLlama
import Foundation
import LookCore
import Platform

/// lookd's int8 vision tower: a copy of an mmproj whose weight matrices are Q8_0, as the seed's app
/// runs an int8 tower. The pinned llama.cpp has no mmproj quantizer, so this is the one: the source's
/// header is read with llama.cpp's gguf reader, the new header is written by the same library (every
/// key copied, the tensors' new types and offsets), and each matrix is converted with ggml's own
/// `ggml_quantize_chunk`, a slice of rows at a time (memory stays small for a 1 GB mmproj).
///
/// Which tensors change: 2-D matrices of F32, F16 or BF16 named `*.weight` whose rows are whole Q8_0
/// blocks (a multiple of 32), but the embeddings (patches, positions, queries), which the tower adds
/// or gathers rather than multiplies. A feed-forward down matrix whose rows are not whole blocks (the
/// 1B's `ffn_down`, rows of 4,304) is padded with zeros to whole blocks and made Q8_0 too, and its up
/// matrix and bias gain zero rows to match, where this build's llama.cpp can take it
/// (`tools/patches/mtmd-clip-ffn-pad.patch`); the product is the same, on the int8 kernel. Everything
/// else is copied byte for byte.
///
/// The file is written beside `destination` under a temporary name and renamed into place only when
/// whole and synced, so a full disk or a kill leaves no file that a later load would take.
public enum VisionQuantizer {
    /// What the copy holds.
    public struct Summary: Sendable, Equatable {
        /// Matrices made Q8_0, and tensors copied as they were.
        public var quantized: Int
        public var kept: Int
        public var bytes: Int64
    }

    public struct Failure: Error, CustomStringConvertible, Equatable {
        public let reason: String
        public var description: String { reason }
        public init(reason: String) { self.reason = reason }
    }

    /// Keys lookd writes into its copies: what the weights are, and the size and modification time
    /// of the file they were made from (a copy of an older file is made again).
    public static let weightsKey = "lookd.vision_weights"
    public static let sourceSizeKey = "lookd.source.size"
    public static let sourceTimeKey = "lookd.source.mtime"
    /// The copy's layout: 2 when down matrices may be padded (this build pads their input), 1 when
    /// not. A copy of another layout is made again, so an older copy gains the padded matrices and a
    /// build that cannot pad never loads a padded one.
    public static let formatKey = "lookd.vision_copy.format"
    public static var format: Int { lookd_llama_ffn_pad() != 0 ? 2 : 1 }

    /// Writes the Q8_0 copy of `source` to `destination`; `progress` gets the bytes written and the
    /// total after each tensor.
    @discardableResult
    public static func write(from source: String, to destination: String, progress: (Int64, Int64) -> Void = { _, _ in }) throws(Failure)
        -> Summary
    {
        guard let input = FileHandle(forReadingAtPath: source) else { throw Failure(reason: "\(source) cannot be read") }
        defer { try? input.close() }
        guard let header = GGUFHeader(path: source) else { throw Failure(reason: "\(source) is not a GGUF file llama.cpp can read") }
        let plan = try Plan(source: header, stamp: stamp(of: source))
        let folder = FilePath.folder(of: destination)
        let temporary: String
        do {
            temporary = try SafeFile.claim(in: folder, stem: ".\((destination as NSString).lastPathComponent).partial-\(getpid())", ext: "tmp")
        } catch {
            throw Failure(reason: error.description)
        }
        var placed = false
        defer { if !placed { unlink(temporary) } }
        let fd = open(temporary, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(reason: "\(temporary) cannot be written: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var out = Output(fd: fd, path: temporary)
        try out.write(plan.meta)
        let dataStart = Int64(plan.meta.count)
        for tensor in plan.tensors {
            try out.pad(to: dataStart + tensor.offset)
            try input.seek(toOffsetOrFail: plan.sourceData + tensor.sourceOffset, source: source)
            if let rowBytes = tensor.quantizedRowBytes {
                try quantize(tensor, from: input, source: source, rowBytes: rowBytes, into: &out)
            } else {
                try copy(tensor.sourceSize, from: input, source: source, into: &out)
            }
            progress(out.written, plan.total)
        }
        try out.pad(to: plan.total)
        guard fsync(fd) == 0 else { throw Failure(reason: "\(temporary) could not be synced: \(String(cString: strerror(errno)))") }
        do {
            try SafeFile.place(temporary, at: destination)
        } catch {
            throw Failure(reason: error.description)
        }
        placed = true
        return Summary(
            quantized: plan.tensors.count { $0.quantizedRowBytes != nil }, kept: plan.tensors.count { $0.quantizedRowBytes == nil },
            bytes: out.written)
    }

    /// The new header and where each tensor's bytes come from and go.
    private struct Plan {
        struct Tensor {
            let type: ggml_type
            let rows: Int
            let rowLength: Int
            /// The Q8_0 row's length: rowLength, or more where the row is padded with zeros.
            let paddedLength: Int
            let sourceOffset: Int64
            let sourceSize: Int
            let offset: Int64
            /// The bytes of one Q8_0 row when the tensor is made Q8_0, else nil.
            let quantizedRowBytes: Int?
        }

        var meta: [UInt8]
        var tensors: [Tensor] = []
        var sourceData: Int64
        var total: Int64

        init(source: GGUFHeader, stamp: (size: Int64, mtime: Int64)?) throws(Failure) {
            let count = Int(gguf_get_n_tensors(source.pointer))
            guard let shapes = GGMLDescriptions(tensors: count) else { throw Failure(reason: "ggml could not start") }
            let header = GGUFHeader()
            gguf_set_kv(header.pointer, source.pointer)
            gguf_set_val_str(header.pointer, VisionQuantizer.weightsKey, "q8_0")
            gguf_set_val_i32(header.pointer, VisionQuantizer.formatKey, Int32(VisionQuantizer.format))
            if let stamp {
                gguf_set_val_i64(header.pointer, VisionQuantizer.sourceSizeKey, stamp.size)
                gguf_set_val_i64(header.pointer, VisionQuantizer.sourceTimeKey, stamp.mtime)
            }
            var planned: [(ggml_type, [Int64], Int64, Int, Int64?)] = []
            let pads = VisionQuantizer.padsDown(source)
            let entries = (0..<Int64(count)).map { i in
                let ne = gguf_get_tensor_ne(source.pointer, i)!
                return (
                    name: String(cString: gguf_get_tensor_name(source.pointer, i)), type: gguf_get_tensor_type(source.pointer, i),
                    ne: (0..<4).map { ne[$0] }
                )
            }
            let widened = VisionQuantizer.widenedFeedForwards(entries, pads: pads)
            for (i, entry) in zip(Int64(0)..., entries) {
                let (name, type, ne) = entry
                let row = VisionQuantizer.q8Row(name: name, type: type, ne: ne, pads: pads)
                let stored = VisionQuantizer.storedShape(name: name, ne: [row ?? ne[0]] + ne.dropFirst(), widened: widened)
                guard let tensor = ggml_new_tensor(shapes.pointer, row != nil ? GGML_TYPE_Q8_0 : type, 4, stored) else {
                    throw Failure(reason: "ggml could not describe \(name)")
                }
                ggml_set_name(tensor, name)
                gguf_add_tensor(header.pointer, tensor)
                planned.append(
                    (type, ne, Int64(gguf_get_tensor_offset(source.pointer, i)), Int(gguf_get_tensor_size(source.pointer, i)), row))
            }
            let size = gguf_get_meta_size(header.pointer)
            meta = [UInt8](repeating: 0, count: size)
            meta.withUnsafeMutableBytes { gguf_get_meta_data(header.pointer, $0.baseAddress) }
            sourceData = Int64(gguf_get_data_offset(source.pointer))
            let alignment = Int64(gguf_get_alignment(header.pointer))
            var end: Int64 = 0
            for (i, p) in planned.enumerated() {
                let (type, ne, sourceOffset, sourceSize, row) = p
                let offset = Int64(gguf_get_tensor_offset(header.pointer, Int64(i)))
                let rowBytes = row.map { ggml_row_size(GGML_TYPE_Q8_0, $0) }
                tensors.append(
                    Tensor(
                        type: type, rows: Int(ne[1] * ne[2] * ne[3]), rowLength: Int(ne[0]), paddedLength: Int(row ?? ne[0]),
                        sourceOffset: sourceOffset, sourceSize: sourceSize, offset: offset, quantizedRowBytes: rowBytes))
                let bytes = Int64(gguf_get_tensor_size(header.pointer, Int64(i)))
                end = offset + (bytes + alignment - 1) / alignment * alignment
            }
            total = Int64(size) + end
        }
    }

    /// Converts a tensor's rows to F32 (padded with zeros to whole blocks) and quantizes them, a slice
    /// at a time.
    private static func quantize(_ tensor: Plan.Tensor, from input: FileHandle, source: String, rowBytes: Int, into out: inout Output) throws(Failure)
    {
        let sourceRow = tensor.sourceSize / max(1, tensor.rows)
        let slice = max(1, (4 << 20) / max(1, sourceRow))
        var floats = [Float](repeating: 0, count: slice * tensor.rowLength)
        var padded = [Float](repeating: 0, count: tensor.paddedLength > tensor.rowLength ? slice * tensor.paddedLength : 0)
        var done = 0
        while done < tensor.rows {
            let rows = min(slice, tensor.rows - done)
            let raw = try input.readExactly(rows * sourceRow, source: source)
            let n = rows * tensor.rowLength
            raw.withUnsafeBytes { bytes in
                floats.withUnsafeMutableBufferPointer { f in
                    switch tensor.type {
                    case GGML_TYPE_F16: ggml_fp16_to_fp32_row(bytes.bindMemory(to: ggml_fp16_t.self).baseAddress, f.baseAddress, Int64(n))
                    case GGML_TYPE_BF16: ggml_bf16_to_fp32_row(bytes.bindMemory(to: ggml_bf16_t.self).baseAddress, f.baseAddress, Int64(n))
                    default: _ = memcpy(f.baseAddress!, bytes.baseAddress!, n * 4)
                    }
                }
            }
            if !padded.isEmpty {
                for r in 0..<rows {
                    padded.replaceSubrange(
                        r * tensor.paddedLength..<r * tensor.paddedLength + tensor.rowLength,
                        with: floats[r * tensor.rowLength..<(r + 1) * tensor.rowLength])
                }
            }
            var packed = [UInt8](repeating: 0, count: rows * rowBytes)
            packed.withUnsafeMutableBytes { dst in
                _ = (padded.isEmpty ? floats : padded).withUnsafeBufferPointer { f in
                    ggml_quantize_chunk(GGML_TYPE_Q8_0, f.baseAddress, dst.baseAddress, 0, Int64(rows), Int64(tensor.paddedLength), nil)
                }
            }
            try out.write(packed)
            done += rows
        }
    }

    private static func copy(_ count: Int, from input: FileHandle, source: String, into out: inout Output) throws(Failure) {
        var left = count
        while left > 0 {
            let part = min(left, 8 << 20)
            try out.write([UInt8](try input.readExactly(part, source: source)))
            left -= part
        }
    }

    /// The temporary file being written, and how far.
    private struct Output {
        let fd: Int32
        let path: String
        var written: Int64 = 0

        mutating func write(_ bytes: [UInt8]) throws(Failure) {
            let result = FileOutput.write(fd, bytes)
            written += Int64(result.written)
            if let reason = result.reason { throw Failure(reason: "\(path) could not be written: \(reason)") }
        }

        mutating func pad(to offset: Int64) throws(Failure) {
            guard offset > written else { return }
            try write([UInt8](repeating: 0, count: Int(offset - written)))
        }
    }
}

extension FileHandle {
    fileprivate func seek(toOffsetOrFail offset: Int64, source: String) throws(VisionQuantizer.Failure) {
        do { try seek(toOffset: UInt64(offset)) } catch { throw VisionQuantizer.Failure(reason: "\(source) is cut short") }
    }

    fileprivate func readExactly(_ count: Int, source: String) throws(VisionQuantizer.Failure) -> Data {
        let data: Data?
        do { data = try read(upToCount: count) } catch { throw VisionQuantizer.Failure(reason: "\(source) cannot be read: \(error)") }
        guard let data, data.count == count else { throw VisionQuantizer.Failure(reason: "\(source) is cut short (a tensor's data is missing)") }
        return data
    }
}
