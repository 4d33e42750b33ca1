/// Joins token pieces (byte sequences that may split a character) into whole UTF-8 characters.
/// Bytes that can never form a character are replaced with U+FFFD rather than held forever.
public struct UTF8Assembler: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    /// Adds `bytes` and returns the text that is now complete (possibly empty).
    public mutating func push(_ bytes: [UInt8]) -> String {
        pending += bytes
        let complete = completePrefixLength(pending)
        guard complete > 0 else { return "" }
        let text = String(decoding: pending[0..<complete], as: UTF8.self)
        pending.removeFirst(complete)
        return text
    }

    /// Whatever is left at the end of the answer (an unfinished character becomes U+FFFD).
    public mutating func finish() -> String {
        defer { pending = [] }
        return pending.isEmpty ? "" : String(decoding: pending, as: UTF8.self)
    }

    /// The length of the longest prefix that does not end inside a character that may still complete.
    private func completePrefixLength(_ b: [UInt8]) -> Int {
        var i = b.count - 1
        var back = 0
        // Walk back over at most 3 continuation bytes to the lead byte of the last character.
        while i >= 0, back < 3, b[i] & 0xC0 == 0x80 { i -= 1; back += 1 }
        guard i >= 0 else { return b.count } // only continuation bytes: invalid, emit them
        let lead = b[i]
        let need: Int
        switch lead {
        case 0xC2...0xDF: need = 2
        case 0xE0...0xEF: need = 3
        case 0xF0...0xF4: need = 4
        default: return b.count // ASCII or an invalid lead: nothing to wait for
        }
        let have = b.count - i
        return have < need ? i : b.count
    }
}
