import Foundation

/// Sizes and durations as a person reads them: `1.23 GB`, `4 min`.
public enum Quantity {
    /// Bytes in decimal units: `512 B`, `4.35 KB`, `1.2 GB`.
    public static func bytes(_ n: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(n)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 { value /= 1000; unit += 1 }
        return unit == 0 ? "\(n) B" : String(format: value < 10 ? "%.2f %@" : "%.1f %@", value, units[unit])
    }

    /// A time left: `42 s`, `12 min`, `1.5 h`; `?` when not finite.
    /// `1 span`, `2 spans`, `0 fires`: a count and its noun, singular for one.
    public static func count(_ n: Int, _ noun: String, plural: String? = nil) -> String {
        "\(n) \(n == 1 ? noun : plural ?? noun + "s")"
    }

    public static func duration(_ s: Double) -> String {
        guard s.isFinite else { return "?" }
        if s < 90 { return "\(Int(s.rounded())) s" }
        if s < 5400 { return "\(Int((s / 60).rounded())) min" }
        return String(format: "%.1f h", s / 3600)
    }
}
