import Foundation
import LookCore
import TestSupport
import VLM
import XCTest

@testable import ModelStore

/// The vision tower's weights are chosen by timing one layer both ways on the CPU at hand, once: the
/// choice is the faster of the two times it records, it is remembered in the model cache for that CPU,
/// kernel set and thread count, and a file lookd cannot read is measured again, not trusted.
final class TowerChoiceTests: XCTestCase {
    func testTheFasterIsChosenOnceAndRemembered() throws {
        let cache = ModelCache(root: try Fixtures.scratch().appendingPathComponent("models").path)
        let first = TowerChoice.current(cache: cache, threads: 1)
        XCTAssertGreaterThan(first.int8Milliseconds, 0)
        XCTAssertGreaterThan(first.f16Milliseconds, 0)
        XCTAssertEqual(first.choice, first.int8Milliseconds < first.f16Milliseconds ? .q8_0 : .f16)
        XCTAssertEqual(first.cpu, TowerChoice.cpuModel())
        XCTAssertEqual(first.kernels, LlamaRuntime.kernels.name)
        XCTAssertTrue(first.reason.contains("one tower layer: "), first.reason)
        XCTAssertEqual(TowerChoice.read(cache), [first], "written to the cache")
        // Read, not measured again: two timings never agree to the last bit.
        XCTAssertEqual(TowerChoice.current(cache: cache, threads: 1), first)

        // What the file says is what is used (the other weights, written by hand).
        let other = first.choice == .q8_0 ? "f16" : "q8_0"
        let path = TowerChoice.path(cache)
        let edited = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(
            of: "\"weights\" : \"\(first.weights)\"", with: "\"weights\" : \"\(other)\"")
        try edited.write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(TowerChoice.current(cache: cache, threads: 1).weights, other)

        // Another thread count is another entry; both stay.
        let two = TowerChoice.current(cache: cache, threads: 2)
        XCTAssertEqual(two.threads, 2)
        XCTAssertEqual(TowerChoice.read(cache).count, 2)
    }

    func testAFileThatCannotBeReadIsMeasuredAgain() throws {
        let cache = ModelCache(root: try Fixtures.scratch().appendingPathComponent("models").path)
        try FileManager.default.createDirectory(atPath: cache.root, withIntermediateDirectories: true)
        try "{ not a list".write(toFile: TowerChoice.path(cache), atomically: true, encoding: .utf8)
        let choice = TowerChoice.current(cache: cache, threads: 1)
        XCTAssertEqual(TowerChoice.read(cache), [choice], "measured and written over")
    }

    func testTheCPUsNameComesFromCpuinfo() throws {
        let file = try Fixtures.scratch().appendingPathComponent("cpuinfo").path
        try "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) N100\nflags\t\t: fpu avx2\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(TowerChoice.cpuModel(cpuinfo: file), "Intel(R) N100")
        XCTAssertEqual(TowerChoice.cpuModel(cpuinfo: file + ".missing"), "unknown CPU")
    }
}
