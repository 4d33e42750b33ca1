import Foundation

/// How many physical cores this process may use: hyper-threads of one core share its vector units,
/// so a model's matrix work runs no faster on both (llama.cpp's own advice is one thread a core).
public enum CPUCores {
    /// Physical cores among the CPUs this process may run on (their distinct package and core ids
    /// in /sys), at least 1; the CPU count where /sys says nothing.
    public static func physical(sysfs: String = "/sys/devices/system/cpu") -> Int {
        let online = ProcessInfo.processInfo.activeProcessorCount
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: sysfs) else { return online }
        var cores = Set<String>()
        for name in names where name.hasPrefix("cpu") && name.dropFirst(3).allSatisfy(\.isNumber) && name.count > 3 {
            let topology = "\(sysfs)/\(name)/topology"
            guard let package = read("\(topology)/physical_package_id"), let core = read("\(topology)/core_id") else { continue }
            if read("\(sysfs)/\(name)/online") == "0" { continue }
            cores.insert("\(package)/\(core)")
        }
        return cores.isEmpty ? online : max(1, min(cores.count, online))
    }

    private static func read(_ path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
