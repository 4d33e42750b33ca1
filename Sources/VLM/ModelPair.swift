internal import CLlama

/// How lookd runs a language model and its mmproj, decided from the two GGUF headers before
/// llama.cpp sees either file. MiniCPM-V 4.7 is recognised by its mmproj's projector type
/// (`minicpmv4_7`), whatever its language model carries: converters differ in how (and whether) they
/// record which position slot holds the time component, and lookd feeds the positions itself.
public struct ModelPair: Sendable {
    /// How the pair runs.
    public enum Verdict: Sendable, Equatable {
        /// llama.cpp places every position itself.
        case native
        /// MiniCPM-V 4.7 on lookd's patched llama.cpp: lookd feeds canvas positions, time in slot 3.
        case canvas(TimeSlot)
        /// It cannot run here; the sentence says why, naming the key, its value and the file.
        case cannotRun(String)
    }

    /// Where the canvas's time slot (3) comes from.
    public enum TimeSlot: Sendable, Equatable {
        /// The language model says so: the key and its value as written.
        case fromFile(key: String, value: String)
        /// The language model says nothing, or names slot 0 (llama.cpp's default layout): lookd
        /// gives llama.cpp slot 3 at load (a key override; no file is rewritten).
        case suppliedByLookd(reason: String)
    }

    /// The key lookd's llama.cpp patch reads (tools/patches): lookd sets it at load for every 4.7 pair.
    public static let timeSlotKey = "qwen35.rope.mrope_time_slot"
    /// The projector type that marks MiniCPM-V 4.7.
    public static let canvasProjector = "minicpmv4_7"

    public let model: GGUFMetadata
    public let mmproj: GGUFMetadata
    public let modelPath: String
    public let mmprojPath: String
    public let verdict: Verdict
    /// The language model's architecture (`qwen35`, `gemma3`, …).
    public var architecture: String { model.string("general.architecture") ?? "unknown" }
    /// The mmproj's projector type (`minicpmv4_7`, `qwen25vl`, …).
    public var projector: String? { mmproj.string("clip.projector_type") ?? mmproj.string("clip.vision.projector_type") }
    /// Whether this llama.cpp build leaves MiniCPM-V 4.7's positions to lookd (lookd's patch).
    public static var patchedBuild: Bool { lookd_llama_canvas() == 1 }

    public init(model: GGUFMetadata, modelPath: String, mmproj: GGUFMetadata, mmprojPath: String, patched: Bool = ModelPair.patchedBuild) {
        self.model = model
        self.mmproj = mmproj
        self.modelPath = modelPath
        self.mmprojPath = mmprojPath
        verdict = Self.decide(model: model, modelPath: modelPath, mmproj: mmproj, patched: patched)
    }

    /// Reads both headers (nothing is loaded), with the engine's sentences for missing or wrong files.
    public static func read(model: String, mmproj: String) throws(VLMError) -> ModelPair {
        try LlamaEngine.checkFiles(model: model, mmproj: mmproj)
    }

    /// The language model's keys that say where the time component goes (any spelling under
    /// `<arch>.rope.` with `time_slot` in it, and `<arch>.rope.section_order`).
    public var positionKeys: [(key: String, value: String)] {
        let prefix = "\(architecture).rope."
        return model.values.keys.filter { $0.hasPrefix(prefix) && ($0.contains("time_slot") || $0.hasSuffix("section_order")) }
            .sorted().map { ($0, Self.show(model.values[$0]!)) }
    }

    /// Why the mmproj's pictures do not fit the language model, from the headers: the mmproj hands
    /// it pictures as wide as its projection, which must be the model's width (the check a load makes).
    public var widthProblem: String? { Self.widthProblem(model: model, mmproj: mmproj) }

    static func widthProblem(model: GGUFMetadata, mmproj: GGUFMetadata) -> String? {
        let arch = model.string("general.architecture") ?? "unknown"
        guard let projection = mmproj.integer("clip.vision.projection_dim"), let width = model.integer("\(arch).embedding_length"),
            projection != width
        else { return nil }
        return "it gives pictures \(projection) wide, and the language model takes \(width)"
    }

    private static func decide(model: GGUFMetadata, modelPath: String, mmproj: GGUFMetadata, patched: Bool) -> Verdict {
        let arch = model.string("general.architecture") ?? "unknown"
        let projector = mmproj.string("clip.projector_type") ?? mmproj.string("clip.vision.projector_type")
        let prefix = "\(arch).rope."
        let slotKeys = model.values.keys.filter { $0.hasPrefix(prefix) && $0.contains("time_slot") }.sorted()
        let orderKey = prefix + "section_order"
        if let problem = widthProblem(model: model, mmproj: mmproj) {
            return .cannotRun("the mmproj does not fit \(modelPath): \(problem); use the mmproj published with that model")
        }
        guard projector == canvasProjector else {
            // A 4.7 language model beside another projector: its file asks for canvas positions, which
            // only a 4.7 mmproj gets; fed plainly, its positions would be wrong.
            if let key = slotKeys.first(where: { model.integer($0) == 3 }) ?? (model.string(orderKey) == "zyxt" ? orderKey : nil) {
                return .cannotRun(
                    "its language model \(modelPath) has \(key) = \(show(model.values[key]!)) (MiniCPM-V 4.7's canvas "
                        + "positions), but the mmproj's projector type is \(projector ?? "unknown"), not \(canvasProjector): "
                        + "use the mmproj published with that model")
            }
            return .native
        }
        guard patched else { return .native } // a system llama.cpp: it runs 4.7 itself or refuses the projector
        guard arch == "qwen35" else {
            return .cannotRun(
                "MiniCPM-V 4.7's language model \(modelPath) has general.architecture = \(arch); lookd's patched "
                    + "llama.cpp feeds canvas positions to qwen35 language models only")
        }
        for key in slotKeys {
            guard let slot = model.integer(key) else {
                return .cannotRun("\(modelPath) has \(key) = \(show(model.values[key]!)), which is not a slot number")
            }
            if slot == 3 { return .canvas(.fromFile(key: key, value: "3")) }
            if slot != 0 {
                return .cannotRun(
                    "\(modelPath) has \(key) = \(slot): slot \(slot) holds the \(slot == 1 ? "height" : slot == 2 ? "width" : "nothing") "
                        + "of MiniCPM-V 4.7's positions, not the time (3, or 0 for llama.cpp's default)")
            }
            return .canvas(.suppliedByLookd(reason: "\(key) = 0 names llama.cpp's default layout"))
        }
        if let value = model.values[orderKey] {
            guard case .string(let order) = value, let slot = timeSlot(sectionOrder: order) else {
                return .cannotRun(
                    "\(modelPath) has \(orderKey) = \(show(value)); lookd reads \"zyxt\" (time in slot 3) and "
                        + "\"tyxz\" (time in slot 0), with height and width in slots 1 and 2")
            }
            return slot == 3
                ? .canvas(.fromFile(key: orderKey, value: order))
                : .canvas(.suppliedByLookd(reason: "\(orderKey) = \(order) puts the time in slot 0"))
        }
        return .canvas(.suppliedByLookd(reason: "the language model names no time slot"))
    }

    /// The slot that holds t in a section order (one letter per position slot: t time, y height,
    /// x width, z the extra slot): 0 or 3, with y and x in slots 1 and 2; nil for any other order.
    static func timeSlot(sectionOrder order: String) -> Int? {
        switch order.lowercased() {
        case "tyxz": return 0
        case "zyxt": return 3
        default: return nil
        }
    }

    static func show(_ value: GGUFMetadata.Value) -> String {
        switch value {
        case .int(let v): return String(v)
        case .uint(let v): return String(v)
        case .float(let v): return String(v)
        case .bool(let v): return String(v)
        case .string(let s): return "\"\(s)\""
        case .ints(let v): return "[" + v.map(String.init).joined(separator: ", ") + "]"
        }
    }
}
