import ModelStore
import TestSupport
import VLM
import XCTest

/// What `lookd models inspect` prints for a pair.
final class ModelPairReportTests: XCTestCase {
    func testTheReportSaysWhatAUserPastes() throws {
        let pair = try ModelPair.read(model: Fixtures.variant47("nokey"), mmproj: Fixtures.mmproj47)
        let report = pair.report()
        XCTAssertTrue(report.contains("kind            qwen35"), report)
        XCTAssertTrue(report.contains("projector minicpmv4_7"), report)
        XCTAssertTrue(report.contains("mostly F32"), report)
        XCTAssertTrue(report.contains("time slot keys  none"), report)
        XCTAssertTrue(
            report.hasSuffix("Verdict: runs as MiniCPM-V 4.7 (canvas positions; time slot supplied by lookd: the language model names no time slot)"),
            report)
    }
}
