import Foundation
import LookCore

/// Which weights the vision tower runs: `q8_0`, lookd's int8 copy of the mmproj (as the seed's app
/// runs an int8 tower), or `f16`, the mmproj as published. Unless the user says, the faster on the CPU
/// at hand, measured once (ModelStore's TowerChoice).
public enum VisionWeights: String, Sendable, CaseIterable {
    case q8_0
    case f16

    public struct Unknown: Error { public let text: String }

    /// `--vision-weights WORD`.
    public init(option word: String) throws(Unknown) {
        guard let weights = VisionWeights(rawValue: word.lowercased()) else {
            throw Unknown(
                text: "\(SettingName.visionWeights) takes q8_0 (lookd's int8 copy of the vision tower) or f16 (the mmproj as published), not \(word)"
            )
        }
        self = weights
    }
}

extension GGUFMetadata {
    /// The ggml type of most of the layers' matrices (`*attn_*.weight`, `*ffn_*.weight`; all
    /// tensors when there are none), in lower case (`f16`, `q8_0`, `f32`, `bf16`, else `type N`):
    /// what an mmproj's tower multiplies with.
    public var mostWeights: String {
        var elements: [UInt32: UInt64] = [:]
        let layers = tensors.filter { $0.name.hasSuffix(".weight") && ($0.name.contains("attn_") || $0.name.contains("ffn_")) }
        for t in layers.isEmpty ? tensors : layers { elements[t.type, default: 0] &+= t.elements }
        guard let type = elements.max(by: { $0.value < $1.value })?.key else { return "none" }
        return Self.typeNames[type] ?? "type \(type)"
    }

    static let typeNames: [UInt32: String] = [0: "f32", 1: "f16", 2: "q4_0", 3: "q4_1", 8: "q8_0", 12: "q4_k", 14: "q6_k", 30: "bf16"]
}
