import Foundation
import LookCore
import Platform

/// The numbers under an answer: the measured line, then where it ran.
public enum NumbersLine {
    /// `first token 1.01 s · 98.8 tok/s` (the rate of the tokens after the first).
    public static func ask(_ t: GenerationTimings) -> String {
        guard let first = t.firstToken else { return "no tokens · total \(seconds(t.total))" }
        var line = "first token \(seconds(first))"
        if let rate = t.tokensPerSecond { line += " · \(String(format: "%.1f", rate)) tok/s" }
        return line
    }

    /// `CPU · on-device`: lookd runs the model on this machine's processor.
    public static let place = "CPU · on-device"

    public static func seconds(_ s: Double) -> String { String(format: "%.2f s", s) }

    /// `CPU · on-device · frame 18 · 52 °C · 349 MB`: where a watch frame ran (`where`: the engine's
    /// own words, `server · gpu-box:8080` for a remote one), and this machine's state.
    public static func watchPlace(frame: Int, where engine: String = place) -> String {
        var parts = [engine, "frame \(frame)", SystemStats.thermal() ?? "no thermal sensor"]
        if let bytes = SystemStats.residentBytes() { parts.append("\(bytes / 1_000_000) MB") }
        return parts.joined(separator: " · ")
    }
}
