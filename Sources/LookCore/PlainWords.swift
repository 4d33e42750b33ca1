/// Rules are plain words: the checks the rules' words and reactions' values share.
public enum PlainWords {
    /// A control character (ESC, BEL, NUL, DEL, …) would reach terminals, the journal and the model's
    /// prompt as it is: rules are plain words. So would an invisible format character (a bidi
    /// override that shows a condition reversed, a zero-width space that makes two conditions look
    /// alike). Tabs inside a line are words' spacing and pass.
    public static func controlCharacter(in text: String, what: String) -> String? {
        let invisible: (Unicode.Scalar) -> Bool = {
            $0 != "\t" && ($0.properties.generalCategory == .control || $0.properties.generalCategory == .format)
        }
        guard let bad = text.unicodeScalars.first(where: invisible) else { return nil }
        let code = String(bad.value, radix: 16, uppercase: true)
        let name = controlNames[bad.value].map { " (\($0))" } ?? ""
        return
            ("\(what) holds the control character U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code)\(name); write it in plain words")
    }

    private static let controlNames: [UInt32: String] = [
        0: "NUL", 7: "BEL", 8: "backspace", 0x1B: "ESC", 0x7F: "DEL", 0x0D: "carriage return", 0x200B: "zero-width space",
        0x200C: "zero-width non-joiner", 0x200D: "zero-width joiner", 0x200E: "left-to-right mark", 0x200F: "right-to-left mark",
        0x202A: "left-to-right embedding", 0x202B: "right-to-left embedding", 0x202C: "pop directional formatting",
        0x202D: "left-to-right override", 0x202E: "right-to-left override", 0x2066: "left-to-right isolate",
        0x2067: "right-to-left isolate", 0x2068: "first strong isolate", 0x2069: "pop directional isolate",
        0xFEFF: "zero-width no-break space", 0x00AD: "soft hyphen",
    ]
}
