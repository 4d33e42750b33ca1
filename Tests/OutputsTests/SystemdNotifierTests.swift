import Foundation
import LookCore
import TestSupport
import XCTest

@testable import Outputs

/// The notify socket of a manager that reads nothing (its queue full) must not stall the loop.
final class SystemdNotifierTests: XCTestCase {
    func testAFullManagerQueueDropsStatusInsteadOfBlocking() throws {
        let dir = try Fixtures.scratch()
        let path = dir.appendingPathComponent("notify.sock").path
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(bound, 0)

        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path], clock: MonotonicClock())
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for i in 0..<500 { notifier.status("frame \(i)") }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "500 STATUS messages to a full queue return (a blocking send hangs here)")

        var received: [String] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard n > 0 else { break }
            received.append(String(decoding: buffer[0..<n], as: UTF8.self))
        }
        XCTAssertEqual(received.first, "STATUS=frame 0", "the first messages went through")
        XCTAssertLessThan(received.count, 500, "the rest were dropped, not queued")
    }
}
