import LookCore

/// Reads a box from the model's answer: the numbers inside the first box tag (`<box>`,
/// `<|box_start|>`, `<point>`, `<quad>`), else the first four numbers of the answer. Four numbers all
/// within 0–1 written with a decimal point are fractions; numbers over 1000 are pixels of the frame
/// the model got; otherwise per mille. Fewer than four numbers: no box. Total: any text in, a box or
/// nil out.
public enum BoxParser {
    static let tags: [(open: String, close: String)] = [
        ("<box>", "</box>"), ("<|box_start|>", "<|box_end|>"), ("<point>", "</point>"), ("<quad>", "</quad>"),
    ]

    /// `frame`: the size of the picture the model got, for answers in pixels.
    public static func parse(_ answer: String, frame: (width: Int, height: Int)) -> Box? {
        let numbers = numbersToRead(answer)
        guard numbers.count >= 4 else { return nil }
        let four = Array(numbers.prefix(4))
        let values = four.map(\.value)
        if four.allSatisfy({ $0.hasPoint }) && values.allSatisfy({ (0...1).contains($0) }) {
            return box(values.map { $0 * 1000 })
        }
        if values.contains(where: { $0 > 1000 }), frame.width > 0, frame.height > 0 {
            let w = Double(frame.width), h = Double(frame.height)
            return box([values[0] / w * 1000, values[1] / h * 1000, values[2] / w * 1000, values[3] / h * 1000])
        }
        return box(values)
    }

    private static func box(_ v: [Double]) -> Box {
        let r = v.map { min(max(Int(saturating: $0.rounded()), 0), 1000) }
        return Box(left: r[0], top: r[1], right: r[2], bottom: r[3])
    }

    /// The numbers inside the first box tag there is, else all the answer's numbers.
    static func numbersToRead(_ answer: String) -> [Number] {
        var first: (range: Range<String.Index>, close: String)?
        for tag in tags {
            if let r = answer.range(of: tag.open), first == nil || r.lowerBound < first!.range.lowerBound {
                first = (r, tag.close)
            }
        }
        guard let (open, close) = first else { return numbers(in: Substring(answer)) }
        let rest = answer[open.upperBound...]
        let inside = rest.range(of: close).map { rest[..<$0.lowerBound] } ?? rest
        return numbers(in: inside)
    }

    struct Number {
        var value: Double
        var hasPoint: Bool
    }

    /// Unsigned numbers, with or without a decimal point (`238`, `0.25`, `.5`).
    static func numbers(in text: Substring) -> [Number] {
        var out: [Number] = []
        var digits = ""
        var point = false
        func flush() {
            if let v = Double(digits), digits != "." { out.append(Number(value: v, hasPoint: point)) }
            digits = ""
            point = false
        }
        for c in text {
            if c.isASCII && c.isNumber {
                digits.append(c)
            } else if c == ".", !point {
                if digits.isEmpty { digits = "0" }
                digits.append(c)
                point = true
            } else {
                if digits.hasSuffix(".") { digits.removeLast(); point = false }
                flush()
            }
            if digits.count > 12 { flush() } // no number lookd reads has more digits
        }
        if digits.hasSuffix(".") { digits.removeLast(); point = false }
        flush()
        return out
    }
}
