internal import CLlama
import Foundation
import LookCore
import Platform

/// The in-process engine: a GGUF language model (libllama) and its vision projector (libmtmd),
/// loaded once, answering on the CPU. One question at a time: calls are serialised.
public final class LlamaEngine: VisionLanguageModel, @unchecked Sendable {
    public struct Options: Sendable {
        /// Context length in tokens (not the model's trained 262,144: memory grows with it).
        public var contextSize: Int = 4096
        /// Threads for decoding and the vision tower (default: one a physical core).
        public var threads: Int = CPUCores.physical()
        /// The vision tower's weights the user asked for: lookd's int8 copy (the caller makes it:
        /// VisionCopies) or the mmproj as published; nil for the faster on this CPU (TowerChoice).
        public var visionWeights: VisionWeights?
        /// Prompt tokens read per `llama_decode`.
        public var batchSize: Int = 512
        /// Test hook: leave a MiniCPM-V 4.7 language model's time slot as its file has it (the tests
        /// show that positions then go wrong).
        var suppliesTimeSlot = true
        public init() {}
    }

    public let modelPath: String
    public let mmprojPath: String
    /// The file the vision tower runs: the mmproj, or lookd's Q8_0 copy of it.
    public let towerPath: String
    /// The type most of the tower's weights are (`q8_0`, `f16`, …).
    public let visionWeights: String
    public let options: Options
    public var engineName: String { "llama.cpp · \((modelPath as NSString).lastPathComponent)" }
    /// Seconds the load took.
    public let loadSeconds: Double

    private let handles: (model: LlamaModel, context: LlamaContext, vision: VisionContext, sampler: GreedySampler)
    var model: OpaquePointer { handles.model.pointer }
    var context: OpaquePointer { handles.context.pointer }
    var vision: OpaquePointer { handles.vision.pointer }
    var sampler: UnsafeMutablePointer<llama_sampler> { handles.sampler.pointer }
    let vocab: OpaquePointer
    let template: ChatTemplate
    let lock = NSLock()
    let abortFlag = AbortFlag()
    /// MiniCPM-V 4.7 on lookd's patched llama.cpp: lookd feeds the canvas positions (nil otherwise).
    let canvas: CanvasSupport?
    /// What the two headers said and how lookd runs the pair.
    public let pair: ModelPair
    /// The clock the engine times its work on.
    let clock: any Clock

    /// The llama.cpp this lookd was built with, and its compute backends.
    public static var build: String { LlamaRuntime.build }

    /// Loads both files, or says in a sentence why not. `towerPath`: the file the vision tower loads
    /// instead of `mmprojPath`, lookd's Q8_0 copy of it (VisionQuantizer); the records still name
    /// `mmprojPath`, and `visionWeights` says which weights the tower runs.
    public init(modelPath: String, mmprojPath: String, towerPath: String? = nil, options: Options = Options(), clock: any Clock) throws(VLMError) {
        let started = clock.now()
        self.clock = clock
        self.modelPath = modelPath
        self.mmprojPath = mmprojPath
        self.towerPath = towerPath ?? mmprojPath
        self.options = options
        let pair = try Self.checkFiles(model: modelPath, mmproj: mmprojPath)
        self.pair = pair
        visionWeights = towerPath.flatMap { try? GGUFMetadata.read(path: $0).mostWeights } ?? pair.mmproj.mostWeights
        let projector = pair.projector
        var wantsCanvas = false
        if let problem = pair.widthProblem { throw .projectorMismatch(model: modelPath, mmproj: mmprojPath, reason: problem) }
        switch pair.verdict {
        case .cannotRun(let reason): throw .pairCannotRun(reason: reason)
        case .canvas: wantsCanvas = true
        case .native: break
        }
        LlamaRuntime.start()
        LlamaRuntime.clearRecent()
        let model = try LlamaModel(path: modelPath, timeSlot: wantsCanvas && options.suppliesTimeSlot ? 3 : nil)
        let context = try LlamaContext(model: model, path: modelPath, options: options)
        let vision = try VisionContext(mmproj: self.towerPath, model: model, modelPath: modelPath, projector: projector, threads: options.threads)
        let vocab = llama_model_get_vocab(model.pointer)!
        canvas =
            wantsCanvas
            ? try CanvasSupport(modelPath: modelPath, width: Int(llama_model_n_embd_inp(model.pointer))) { Self.tokenize($0, vocab: vocab) }
            : nil
        handles = (model, context, vision, GreedySampler())
        self.vocab = vocab
        self.template = ChatTemplate(vocab: vocab, projector: projector)
        self.loadSeconds = clock.now() - started
        llama_set_abort_callback(
            context.pointer,
            { data in
                guard let data else { return false }
                return Unmanaged<AbortFlag>.fromOpaque(data).takeUnretainedValue().isSet
            }, Unmanaged.passUnretained(abortFlag).toOpaque())
    }

    /// Checks both paths before llama.cpp sees them, and decides how the pair runs.
    static func checkFiles(model: String, mmproj: String) throws(VLMError) -> ModelPair {
        let m = try header(role: "language model", path: model)
        if m.string("general.architecture") == "clip" {
            throw .wrongKind(role: "language model", path: model, found: "a vision projector (mmproj)")
        }
        let p = try header(role: "mmproj", path: mmproj)
        guard p.string("general.architecture") == "clip" else {
            throw .wrongKind(
                role: "mmproj", path: mmproj,
                found: "a language model (\(p.string("general.architecture") ?? "unknown architecture")), not a vision projector")
        }
        return ModelPair(model: m, modelPath: model, mmproj: p, mmprojPath: mmproj)
    }

    static func header(role: String, path: String) throws(VLMError) -> GGUFMetadata {
        do {
            return try GGUFMetadata.read(path: path)
        } catch .missing {
            throw .fileMissing(role: role, path: path)
        } catch .notAFile {
            throw .notAFile(role: role, path: path)
        } catch .unreadable {
            throw .unreadable(role: role, path: path)
        } catch {
            throw .notGGUF(role: role, path: path)
        }
    }
}

/// What llama.cpp's abort callback reads while a prompt is decoded: the running call's cancellation.
final class AbortFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var cancellation: Cancellation?
    var isSet: Bool { lock.withLock { cancellation?.isCancelled ?? false } }
    func watch(_ c: Cancellation?) { lock.withLock { cancellation = c } }
}
