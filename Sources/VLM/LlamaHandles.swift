internal import CLlama

/// A loaded language model (`llama_model`), freed with its owner. `timeSlot` sets MiniCPM-V 4.7's
/// time slot at load (the key lookd's llama.cpp patch reads; ModelPair says why).
final class LlamaModel {
    let pointer: OpaquePointer

    init(path: String, timeSlot: Int?) throws(VLMError) {
        var params = llama_model_default_params()
        params.n_gpu_layers = 0
        var overrides = [llama_model_kv_override](repeating: llama_model_kv_override(), count: 2)
        if let timeSlot { lookd_kv_override_int(&overrides[0], ModelPair.timeSlotKey, Int64(timeSlot)) }
        let loaded = overrides.withUnsafeBufferPointer { list in
            params.kv_overrides = list.baseAddress
            return llama_model_load_from_file(path, params)
        }
        guard let loaded else {
            throw .modelLoadFailed(path: path, reason: LlamaRuntime.firstError() ?? "llama.cpp could not read it")
        }
        pointer = loaded
    }

    deinit { llama_model_free(pointer) }
}

/// A context on a model: its KV cache and compute buffers (`llama_context`). Keeps the model alive.
final class LlamaContext {
    let pointer: OpaquePointer
    private let model: LlamaModel

    init(model: LlamaModel, path: String, options: LlamaEngine.Options) throws(VLMError) {
        var params = llama_context_default_params()
        params.n_ctx = UInt32(options.contextSize)
        params.n_batch = UInt32(options.batchSize)
        params.n_ubatch = UInt32(options.batchSize)
        params.n_threads = Int32(options.threads)
        params.n_threads_batch = Int32(options.threads)
        params.no_perf = true
        guard let context = llama_init_from_model(model.pointer, params) else {
            throw .modelLoadFailed(path: path, reason: LlamaRuntime.firstError() ?? "no context of \(options.contextSize) tokens could be made")
        }
        self.model = model
        pointer = context
    }

    deinit { llama_free(pointer) }
}

/// The vision projector and its encoder (`mtmd_context`), on a model. Keeps the model alive.
final class VisionContext {
    let pointer: OpaquePointer
    private let model: LlamaModel

    init(mmproj: String, model: LlamaModel, modelPath: String, projector: String?, threads: Int) throws(VLMError) {
        var params = mtmd_context_params_default()
        params.use_gpu = false
        params.print_timings = false
        params.n_threads = Int32(threads)
        params.warmup = false
        LlamaRuntime.clearRecent()
        guard let vision = mtmd_init_from_file(mmproj, model.pointer, params) else {
            let log = LlamaRuntime.recentLines()
            if log.contains(where: { $0.contains("unknown projector type") }) {
                throw .projectorUnsupported(path: mmproj, type: projector ?? "unknown", build: LlamaRuntime.build)
            }
            if let line = log.first(where: { $0.contains("mismatch between text model") }) {
                throw .projectorMismatch(model: modelPath, mmproj: mmproj, reason: LlamaRuntime.clean(line))
            }
            throw .projectorLoadFailed(path: mmproj, reason: LlamaRuntime.firstError() ?? "libmtmd could not read it")
        }
        self.model = model
        pointer = vision
        guard mtmd_support_vision(vision) else { throw .noVision(path: mmproj) }
    }

    deinit { mtmd_free(pointer) }
}

/// The greedy sampler chain (`llama_sampler`).
final class GreedySampler {
    let pointer: UnsafeMutablePointer<llama_sampler>

    init() {
        pointer = llama_sampler_chain_init(llama_sampler_chain_default_params())!
        llama_sampler_chain_add(pointer, llama_sampler_init_greedy())
    }

    deinit { llama_sampler_free(pointer) }
}
