import Foundation

/// A JSON value whose objects keep their keys in the order written, so records read naturally
/// (`t` and `event` first). Serialised compactly for JSON Lines, or indented for files.
public indirect enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public static func == (a: JSON, b: JSON) -> Bool { a.text() == b.text() }

    /// A number rounded to `places` decimals (times in records: milliseconds to 0.1, seconds to 0.001).
    public static func number(_ x: Double, places: Int = 3) -> JSON {
        guard x.isFinite else { return .null }
        let scale = pow(10, Double(places))
        return .double((x * scale).rounded() / scale)
    }

    public static func optional(_ x: Double?, places: Int = 3) -> JSON { x.map { number($0, places: places) } ?? .null }
    public static func optional(_ s: String?) -> JSON { s.map { .string($0) } ?? .null }
    public static func optional(_ i: Int?) -> JSON { i.map { .int($0) } ?? .null }
    public static func strings(_ items: [String]) -> JSON { .array(items.map { .string($0) }) }
    public static func ints(_ items: [Int]) -> JSON { .array(items.map { .int($0) }) }

    /// The value as JSON text; `indent` > 0 writes one key per line.
    public func text(indent: Int = 0) -> String {
        var out = ""
        write(into: &out, indent: indent, level: 0)
        return out
    }

    private func write(into out: inout String, indent: Int, level: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            if d == d.rounded(), abs(d) < 1e15 { out += String(format: "%.1f", d) } else { out += "\(d)" }
        case .string(let s): Self.quote(s, into: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, level + 1)
                item.write(into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out += "]"
        case .object(let pairs):
            if pairs.isEmpty { out += "{}"; return }
            out += "{"
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, level + 1)
                Self.quote(key, into: &out)
                out += indent > 0 ? ": " : ":"
                value.write(into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out += "}"
        }
    }

    private func newline(_ out: inout String, _ indent: Int, _ level: Int) {
        guard indent > 0 else { return }
        out += "\n" + String(repeating: " ", count: indent * level)
    }

    /// Every string lookd writes as JSON (records, status, the page, MQTT) has its URLs' secrets
    /// masked: a camera's `rtsp://admin:pw@…` is written as `rtsp://admin:***@…` wherever it goes.
    private static func quote(_ raw: String, into out: inout String) {
        let s = Secrets.maskedPasswords(in: raw)
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 || u.value == 0x7F || (0x80...0x9F).contains(u.value) || u.value == 0x2028 || u.value == 0x2029 {
                    out += String(format: "\\u%04x", u.value)
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
    }
}
