import XCTest

@testable import Outputs

/// A clip in byte ranges, as phones' players ask for it (`Range: bytes=0-1` first).
final class ByteRangeTests: XCTestCase {
    private let clip = WebServer.Response.bytes(status: 200, type: "video/mp4", body: Array(0..<100))

    private func answer(_ header: String?) -> (status: Int, body: [UInt8], headers: [String: String]) {
        guard case .bytes(let status, _, let body, let headers) = clip.ranged(header) else { return (0, [], [:]) }
        return (status, body, Dictionary(headers, uniquingKeysWith: { $1 }))
    }

    func testRangesAreServedAsTheStandardSays() {
        let probe = answer("bytes=0-1")
        XCTAssertEqual(probe.status, 206)
        XCTAssertEqual(probe.body, [0, 1])
        XCTAssertEqual(probe.headers["Content-Range"], "bytes 0-1/100")
        XCTAssertEqual(answer("bytes=90-").body, Array(90..<100))
        XCTAssertEqual(answer("bytes=-5").body, Array(95..<100))
        XCTAssertEqual(answer("bytes=50-500").headers["Content-Range"], "bytes 50-99/100", "a last byte past the end is the end")
        let past = answer("bytes=100-")
        XCTAssertEqual(past.status, 416)
        XCTAssertEqual(past.headers["Content-Range"], "bytes */100")
        for whole in [nil, "bytes=0-1,5-6", "items=0-1", "bytes=x-y", "bytes=5-2"] {
            let r = answer(whole)
            XCTAssertEqual(r.status, 200, whole ?? "none")
            XCTAssertEqual(r.body.count, 100)
            XCTAssertEqual(r.headers["Accept-Ranges"], "bytes")
        }
    }
}
