internal import CLlama

/// A GGUF file's header as llama.cpp's gguf reader holds it (`gguf_context`): its keys and its
/// tensors' names, types, shapes and offsets; no tensor data. Or an empty one, to write a new header.
final class GGUFHeader {
    let pointer: OpaquePointer

    /// The header of `path`, or nil when gguf cannot read it.
    init?(path: String) {
        let params = gguf_init_params(no_alloc: true, ctx: nil)
        guard let context = gguf_init_from_file(path, params) else { return nil }
        pointer = context
    }

    /// A new header with no keys and no tensors.
    init() {
        pointer = gguf_init_empty()
    }

    deinit { gguf_free(pointer) }
}

/// A ggml context that holds tensor descriptions only (`no_alloc`): the shapes a new header lists.
final class GGMLDescriptions {
    let pointer: OpaquePointer

    init?(tensors: Int) {
        let params = ggml_init_params(mem_size: ggml_tensor_overhead() * max(1, tensors) + 4096, mem_buffer: nil, no_alloc: true)
        guard let context = ggml_init(params) else { return nil }
        pointer = context
    }

    deinit { ggml_free(pointer) }
}
