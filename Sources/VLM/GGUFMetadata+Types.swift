internal import CLlama

extension GGUFMetadata {
    /// A tensor type's name as ggml spells it, upper-cased (`Q8_0`, `F16`, `Q4_K`).
    public static func typeName(_ type: UInt32) -> String {
        guard type < UInt32(GGML_TYPE_COUNT.rawValue), let name = ggml_type_name(ggml_type(rawValue: type)) else { return "type \(type)" }
        return String(cString: name).uppercased()
    }
}
