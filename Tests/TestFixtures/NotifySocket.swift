import Foundation
import TestSupport

/// A unix datagram socket standing in for systemd's `$NOTIFY_SOCKET`: it keeps every message a
/// process sends to it (sd_notify's `READY=1`, `STATUS=…`, …), in order.
public final class NotifySocket: @unchecked Sendable {
    public let path: String
    private let fd: Int32
    private let lock = NSLock()
    private var _messages: [String] = []
    private var closed = false

    public init(in dir: URL) throws {
        path = dir.appendingPathComponent("notify.sock").path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0 else { throw NSError(domain: "NotifySocket", code: Int(errno)) }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let thread = Thread { [self] in receive() }
        thread.start()
    }

    deinit { close(fd); unlink(path) }

    public func stop() { lock.withLock { closed = true } }

    /// Every message so far.
    public var messages: [String] { lock.withLock { _messages } }

    /// Waits (up to 30 s) for a message containing `text`.
    public func waitFor(_ text: String) -> Bool {
        Poll.until(within: 30, every: 0.01) { messages.contains { $0.contains(text) } }
    }

    private func receive() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !lock.withLock({ closed }) {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 { lock.withLock { _messages.append(String(decoding: buffer[0..<n], as: UTF8.self)) } }
        }
    }
}
