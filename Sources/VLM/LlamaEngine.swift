internal import CLlama
import Foundation
import LookCore

/// The in-process engine: a GGUF language model (libllama) and its vision projector (libmtmd),
/// loaded once, answering on the CPU. One question at a time: calls are serialised.
public final class LlamaEngine: VisionLanguageModel, @unchecked Sendable {
    public struct Options: Sendable {
        /// Context length in tokens (not the model's trained 262,144: memory grows with it).
        public var contextSize: Int = 4096
        /// Threads for decoding and the vision tower (default: every core).
        public var threads: Int = ProcessInfo.processInfo.activeProcessorCount
        /// Prompt tokens read per `llama_decode`.
        public var batchSize: Int = 512
        /// Test hook: leave a MiniCPM-V 4.7 language model's time slot as its file has it (the tests
        /// show that positions then go wrong).
        var suppliesTimeSlot = true
        public init() {}
    }

    public let modelPath: String
    public let mmprojPath: String
    public let options: Options
    public var engineName: String { "llama.cpp · \((modelPath as NSString).lastPathComponent)" }
    /// Seconds the load took.
    public let loadSeconds: Double

    let model: OpaquePointer
    let context: OpaquePointer
    let vision: OpaquePointer
    let sampler: UnsafeMutablePointer<llama_sampler>
    let vocab: OpaquePointer
    let template: ChatTemplate
    let lock = NSLock()
    let abortFlag = AbortFlag()
    /// MiniCPM-V 4.7 on lookd's patched llama.cpp: lookd feeds the canvas positions (nil otherwise).
    let canvas: CanvasSupport?
    /// What the two headers said and how lookd runs the pair.
    public let pair: ModelPair

    /// The llama.cpp this lookd was built with, and its compute backends.
    public static var build: String { LlamaRuntime.build }

    /// Loads both files, or says in a sentence why not.
    public init(modelPath: String, mmprojPath: String, options: Options = Options()) throws(VLMError) {
        let started = MonotonicClock().now()
        self.modelPath = modelPath
        self.mmprojPath = mmprojPath
        self.options = options
        let pair = try Self.checkFiles(model: modelPath, mmproj: mmprojPath)
        self.pair = pair
        let projector = pair.projector
        var wantsCanvas = false
        switch pair.verdict {
        case .cannotRun(let reason): throw .pairCannotRun(reason: reason)
        case .canvas: wantsCanvas = true
        case .native: break
        }
        LlamaRuntime.start()
        LlamaRuntime.clearRecent()

        var mparams = llama_model_default_params()
        mparams.n_gpu_layers = 0
        // A 4.7 pair: the patched llama.cpp reads the time slot from this key; lookd sets it whatever
        // the file carries (ModelPair says why that is right).
        var overrides = [llama_model_kv_override](repeating: llama_model_kv_override(), count: 2)
        if wantsCanvas, options.suppliesTimeSlot { lookd_kv_override_int(&overrides[0], ModelPair.timeSlotKey, 3) }
        let loaded = overrides.withUnsafeBufferPointer { list in
            mparams.kv_overrides = list.baseAddress
            return llama_model_load_from_file(modelPath, mparams)
        }
        guard let model = loaded else {
            throw .modelLoadFailed(path: modelPath, reason: Self.lastError() ?? "llama.cpp could not read it")
        }

        var cparams = llama_context_default_params()
        cparams.n_ctx = UInt32(options.contextSize)
        cparams.n_batch = UInt32(options.batchSize)
        cparams.n_ubatch = UInt32(options.batchSize)
        cparams.n_threads = Int32(options.threads)
        cparams.n_threads_batch = Int32(options.threads)
        cparams.no_perf = true
        guard let context = llama_init_from_model(model, cparams) else {
            llama_model_free(model)
            throw .modelLoadFailed(path: modelPath, reason: Self.lastError() ?? "no context of \(options.contextSize) tokens could be made")
        }

        var vparams = mtmd_context_params_default()
        vparams.use_gpu = false
        vparams.print_timings = false
        vparams.n_threads = Int32(options.threads)
        vparams.warmup = false
        LlamaRuntime.clearRecent()
        guard let vision = mtmd_init_from_file(mmprojPath, model, vparams) else {
            let log = LlamaRuntime.recentLines()
            llama_free(context)
            llama_model_free(model)
            if log.contains(where: { $0.contains("unknown projector type") }) {
                throw .projectorUnsupported(path: mmprojPath, type: projector ?? "unknown", build: LlamaRuntime.build)
            }
            if let line = log.first(where: { $0.contains("mismatch between text model") }) {
                throw .projectorMismatch(model: modelPath, mmproj: mmprojPath, reason: Self.clean(line))
            }
            throw .projectorLoadFailed(path: mmprojPath, reason: Self.lastError() ?? "libmtmd could not read it")
        }
        guard mtmd_support_vision(vision) else {
            mtmd_free(vision); llama_free(context); llama_model_free(model)
            throw .noVision(path: mmprojPath)
        }

        var canvas: CanvasSupport?
        if wantsCanvas {
            let vocab = llama_model_get_vocab(model)!
            do {
                canvas = try CanvasSupport(modelPath: modelPath, width: Int(llama_model_n_embd_inp(model))) {
                    Self.tokenize($0, vocab: vocab)
                }
            } catch {
                mtmd_free(vision); llama_free(context); llama_model_free(model)
                throw error
            }
        }
        self.canvas = canvas

        let chain = llama_sampler_chain_init(llama_sampler_chain_default_params())!
        llama_sampler_chain_add(chain, llama_sampler_init_greedy())

        self.model = model
        self.context = context
        self.vision = vision
        self.sampler = chain
        self.vocab = llama_model_get_vocab(model)
        self.template = ChatTemplate(vocab: llama_model_get_vocab(model), projector: projector)
        self.loadSeconds = MonotonicClock().now() - started
        llama_set_abort_callback(context, { data in
            guard let data else { return false }
            return Unmanaged<AbortFlag>.fromOpaque(data).takeUnretainedValue().isSet
        }, Unmanaged.passUnretained(abortFlag).toOpaque())
    }

    deinit {
        llama_sampler_free(sampler)
        mtmd_free(vision)
        llama_free(context)
        llama_model_free(model)
    }

    /// Checks both paths before llama.cpp sees them, and decides how the pair runs.
    static func checkFiles(model: String, mmproj: String) throws(VLMError) -> ModelPair {
        let m = try header(role: "language model", path: model)
        if m.string("general.architecture") == "clip" {
            throw .wrongKind(role: "language model", path: model, found: "a vision projector (mmproj)")
        }
        let p = try header(role: "mmproj", path: mmproj)
        guard p.string("general.architecture") == "clip" else {
            throw .wrongKind(role: "mmproj", path: mmproj,
                             found: "a language model (\(p.string("general.architecture") ?? "unknown architecture")), not a vision projector")
        }
        return ModelPair(model: m, modelPath: model, mmproj: p, mmprojPath: mmproj)
    }

    static func header(role: String, path: String) throws(VLMError) -> GGUFMetadata {
        do {
            return try GGUFMetadata.read(path: path)
        } catch .missing {
            throw .fileMissing(role: role, path: path)
        } catch {
            throw .notGGUF(role: role, path: path)
        }
    }

    /// The first error line llama.cpp logged since the load began, without its prefixes.
    private static func lastError() -> String? {
        let lines = LlamaRuntime.recentLines()
        return (lines.first { $0.contains("error") } ?? lines.last { $0.contains("failed") }).map(clean)
    }

    private static func clean(_ line: String) -> String {
        var s = Substring(line)
        while let colon = s.range(of: ": "), s[..<colon.lowerBound].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
            s = s[colon.upperBound...]
        }
        for prefix in ["error loading model: ", "error: "] where s.hasPrefix(prefix) { s = s.dropFirst(prefix.count) }
        return s.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "."))
    }
}

/// What llama.cpp's abort callback reads while a prompt is decoded: the running call's cancellation.
final class AbortFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var cancellation: Cancellation?
    var isSet: Bool { lock.withLock { cancellation?.isCancelled ?? false } }
    func watch(_ c: Cancellation?) { lock.withLock { cancellation = c } }
}
