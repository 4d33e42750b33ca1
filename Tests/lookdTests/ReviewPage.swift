import Foundation
import TestFixtures
import TestSupport
import XCTest

/// `lookd history --db DB --http 127.0.0.1:PORT` run for a test: the review page of a history with
/// no watch running. Stopped with the test when it did not stop itself.
final class ReviewPage {
    let port = LoopbackPort.free()
    let process = Process()

    init(db: String) throws {
        process.executableURL = URL(fileURLWithPath: Fixtures.lookd)
        process.arguments = ["history", "--db", db, "--http", "127.0.0.1:\(port)"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        XCTAssertTrue(Poll.until(within: 10, every: 0.05) { LoopbackPort.accepts(self.port) }, "the review page answers")
    }

    deinit { if process.isRunning { process.terminate() } }

    /// The page's answer to `what`: its HTTP status code and its body.
    func get(_ what: String) throws -> (code: String, body: String) {
        let out = try Subprocess.run("/usr/bin/curl", ["-s", "--max-time", "5", "-w", "\n%{http_code}", "http://127.0.0.1:\(port)\(what)"]).stdout
        let cut = out.range(of: "\n", options: .backwards) ?? out.endIndex..<out.endIndex
        return (String(out[cut.upperBound...]), String(out[..<cut.lowerBound]))
    }

    /// Stops it as a user does (SIGTERM); its exit status.
    func stop() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
