import Foundation
import XCTest

@testable import VLM

/// lookd's patch tools/patches/ggml-flush-denormals.patch: ggml's CPU threads flush denormals to zero
/// while they compute a graph (the vision tower's attention ran several times slower without it),
/// keep them with GGML_CPU_KEEP_DENORMALS=1, and give the calling thread its own setting back. The
/// tests run on lookd's own build (tools/setup); a llama.cpp without the patch fails here, as it would
/// silently make every frame slower.
final class DenormalsTests: XCTestCase {
    func testGGMLThreadsFlushDenormalsWhileTheyComputeAndPutTheCallersSettingBack() {
        for threads in [1, 2] {
            XCTAssertEqual(LlamaRuntime.flushedDenormals(threads: threads, count: 256), 256, "\(threads) threads")
        }
        // The calling thread computes its share of the graph too; afterwards its floats are IEEE again.
        let products = [Float(1e-30)].map { $0 * 1e-10 } // computed at run time, not folded
        XCTAssertGreaterThan(products[0], 0, "the caller's own thread still flushes after ggml computed")

        setenv("GGML_CPU_KEEP_DENORMALS", "1", 1)
        defer { unsetenv("GGML_CPU_KEEP_DENORMALS") }
        XCTAssertEqual(LlamaRuntime.flushedDenormals(threads: 2, count: 256), 0, "GGML_CPU_KEEP_DENORMALS=1")
    }
}
