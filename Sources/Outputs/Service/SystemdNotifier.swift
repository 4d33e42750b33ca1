import Foundation
import LookCore

/// sd_notify without libsystemd: one datagram per message to the unix socket systemd names in
/// `$NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace). Does nothing when lookd does not
/// run under systemd.
public final class SystemdNotifier: ServiceNotifier, @unchecked Sendable {
    private let address: String?
    private let fd: Int32
    /// How often systemd wants `WATCHDOG=1` (half its `WatchdogSec=`), nil when it watches nothing.
    public let watchdogInterval: Double?
    private let lock = NSLock()
    private var lastPing = -Double.infinity
    private let clock: any Clock

    public init(environment: [String: String] = ProcessInfo.processInfo.environment, clock: any Clock) {
        self.clock = clock
        let socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        address = socketPath
        fd = socketPath == nil ? -1 : socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let pidMatches = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        watchdogInterval = environment["WATCHDOG_USEC"].flatMap(Double.init).flatMap { pidMatches && $0 > 0 ? $0 / 2e6 : nil }
    }

    deinit { if fd >= 0 { close(fd) } }

    public var isActive: Bool { fd >= 0 }

    /// The model is loaded and the source open.
    public func ready(status: String) { send("READY=1\nSTATUS=\(status)") }
    public func status(_ text: String) { send("STATUS=\(text)") }
    public func stopping() { send("STOPPING=1") }
    public func reloading() { send("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())") }

    /// `WATCHDOG=1`, at most twice per watchdog interval (every frame calls it).
    public func watchdog() {
        guard let interval = watchdogInterval else { return }
        let now = clock.now()
        let due = lock.withLock { () -> Bool in
            guard now - lastPing >= interval / 2 else { return false }
            lastPing = now
            return true
        }
        if due { send("WATCHDOG=1") }
    }

    /// Sends one message without blocking: when the manager's queue is full (10 datagrams by
    /// default), a STATUS is dropped (the next frame sends a newer one) and any other message is
    /// tried again for up to a second. A failure is logged at debug level, as sd_notify ignores it.
    func send(_ message: String) {
        var tries = message.hasPrefix("STATUS=") ? 1 : 20
        while true {
            let error = sendOnce(message)
            guard error == EAGAIN || error == EWOULDBLOCK, tries > 1 else {
                if let error {
                    Log.shared.debug("sd_notify (\(message.prefix(20))…) to \(address ?? "") not sent: \(String(cString: strerror(error)))")
                }
                return
            }
            tries -= 1
            clock.sleep(0.05)
        }
    }

    /// One datagram; nil when it went, else errno.
    private func sendOnce(_ message: String) -> Int32? {
        guard fd >= 0, let address else { return nil }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var path = Array(address.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard path.count < capacity else { return ENAMETOOLONG }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, byte) in path.enumerated() { raw[i] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (path.first == 0 ? 0 : 1))
        let sent = message.withCString { text in
            withUnsafePointer(to: &addr) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, text, strlen(text), Int32(MSG_NOSIGNAL | MSG_DONTWAIT), $0, length)
                }
            }
        }
        return sent < 0 ? errno : nil
    }

    static func monotonicMicroseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
    }
}
