import Foundation

/// Sizes and durations as a person reads them: `1.23 GB`, `4 min`.
public enum Quantity {
    /// A number as a setting or a message writes it: `3`, not `3.0`; `0.5`.
    public static func number(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e9 ? String(Int(x)) : String(x)
    }

    /// Bytes in decimal units: `512 B`, `4.35 KB`, `1.2 GB`.
    public static func bytes(_ n: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(n)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 { value /= 1000; unit += 1 }
        return unit == 0 ? "\(n) B" : String(format: value < 10 ? "%.2f %@" : "%.1f %@", value, units[unit])
    }

    /// `1 span`, `2 spans`, `0 fires`: a count and its noun, singular for one.
    public static func count(_ n: Int, _ noun: String, plural: String? = nil) -> String {
        "\(n) \(n == 1 ? noun : plural ?? noun + "s")"
    }

    /// A time: `42 s`, `12 min`, `1.5 h`, `30 d`; `?` when not finite.
    public static func duration(_ s: Double) -> String {
        guard s.isFinite else { return "?" }
        if s < 90 { return "\(Int(s.rounded())) s" }
        if s < 5400 { return "\(Int((s / 60).rounded())) min" }
        if s < 172_800 { return String(format: "%.1f h", s / 3600) }
        return (s / 86400).plainText + " d"
    }

    /// A size as a person writes it: `2G`, `500M`, `1.5GB`, `800k`, `4096` (bytes; decimal units,
    /// as `bytes` shows them); nil when it is not one.
    public static func parseBytes(_ text: String) -> Int64? {
        var t = text.trimmingCharacters(in: .whitespaces).uppercased()
        if t.hasSuffix("B") { t.removeLast() }
        let units: [Character: Double] = ["K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12]
        var scale = 1.0
        if let last = t.last, let unit = units[last] { (scale, t) = (unit, String(t.dropLast())) }
        guard let n = Double(t.trimmingCharacters(in: .whitespaces)), n.isFinite, n > 0, n * scale < 9e18 else { return nil }
        return Int64((n * scale).rounded())
    }
}
