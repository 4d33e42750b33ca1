import Foundation
import LookCore
import Platform
import TestSupport
import XCTest

/// The default thread count: one a physical core, read from a /sys tree.
final class CPUCoresTests: XCTestCase {
    private func tree(_ cpus: [(package: Int, core: Int)]) throws -> String {
        let root = try Fixtures.scratch().appendingPathComponent("cpu")
        for (i, cpu) in cpus.enumerated() {
            let topology = root.appendingPathComponent("cpu\(i)/topology")
            try FileManager.default.createDirectory(at: topology, withIntermediateDirectories: true)
            try "\(cpu.package)\n".write(to: topology.appendingPathComponent("physical_package_id"), atomically: true, encoding: .utf8)
            try "\(cpu.core)\n".write(to: topology.appendingPathComponent("core_id"), atomically: true, encoding: .utf8)
        }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("cpufreq"), withIntermediateDirectories: true)
        return root.path
    }

    func testHyperThreadsOfOneCoreCountOnce() throws {
        let online = ProcessInfo.processInfo.activeProcessorCount
        // Two threads on one core: one core (never more than the CPUs this process may use).
        XCTAssertEqual(CPUCores.physical(sysfs: try tree([(0, 0), (0, 0)])), 1)
        XCTAssertEqual(CPUCores.physical(sysfs: try tree([(0, 0), (0, 1)])), min(2, online))
        XCTAssertEqual(CPUCores.physical(sysfs: try tree([(0, 0), (1, 0)])), min(2, online), "the same core id in two packages")
        XCTAssertEqual(CPUCores.physical(sysfs: "/nonexistent"), online, "no /sys: every CPU")
    }
}
