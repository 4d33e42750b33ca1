import Foundation

/// Numbers about this machine and process for the numbers line: temperature and resident memory.
public enum SystemStats {
    /// The hottest thermal zone, `52 °C`, or nil where /sys/class/thermal has none.
    public static func thermal() -> String? {
        let base = "/sys/class/thermal"
        guard let zones = try? FileManager.default.contentsOfDirectory(atPath: base) else { return nil }
        let temps = zones.filter { $0.hasPrefix("thermal_zone") }.compactMap { zone -> Int? in
            guard let text = try? String(contentsOfFile: "\(base)/\(zone)/temp", encoding: .utf8) else { return nil }
            return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard let hottest = temps.max() else { return nil }
        return "\(hottest / 1000) °C"
    }

    /// The process's resident memory in bytes (from /proc/self/statm).
    public static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
