import Foundation
import LookCore

/// Keeps the page's connection slots for requests that come whole. libmicrohttpd gives each
/// connection a slot (and a thread) from its first byte, and its idle timeout starts again with
/// every byte, so connections that send half a request, a byte at a time, or nothing at all could
/// hold every slot. The guard watches each connection between its requests:
/// - a new connection has `firstRequest` seconds to send a whole request (its headers), a
///   kept-alive one `between` seconds for its next; past that its socket is shut down;
/// - at most `waitingLimit` connections may wait for a request at once: a new one past that shuts
///   the one that has waited longest, so there is always room for a client that sends its request.
/// - one client address holds at most `perAddress` connections, every loopback address (127.0.0.0/8,
///   ::1) counting as one: a local user cannot take every slot from 127.0.0.2, 127.0.0.3 ….
/// A connection being answered (a page, an event stream) is not the guard's.
final class ConnectionGuard: @unchecked Sendable {
    let firstRequest: Double
    let between: Double
    let waitingLimit: Int
    let perAddress: Int
    /// Each connection's client address as counted (loopback as one), and the count of each.
    private var addresses: [UInt: String] = [:]
    private var perClient: [String: Int] = [:]
    private let clock: any Clock
    private let lock = NSLock()
    /// Each connection (libmicrohttpd's pointer, as a number): its socket, and until when it may
    /// wait for a request (nil: being answered).
    private var connections: [UInt: (fd: Int32, until: Double?)] = [:]
    private var stopped = false
    private(set) var cut = 0

    init(clock: any Clock, firstRequest: Double = 5, between: Double = 3, waitingLimit: Int, perAddress: Int = .max) {
        (self.clock, self.firstRequest, self.between, self.waitingLimit) = (clock, firstRequest, between, max(1, waitingLimit))
        self.perAddress = max(1, perAddress)
        let thread = Thread { [self] in sweep() }
        thread.name = "lookd page guard"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    /// A connection came: it waits for its first request.
    func started(_ id: UInt, fd: Int32) {
        lock.withLock {
            connections[id] = (fd, clock.now() + firstRequest)
            let client = Self.client(of: fd)
            addresses[id] = client
            perClient[client, default: 0] += 1
            if perClient[client]! > perAddress { return shut(id) }
            let waiting = connections.filter { $0.value.until != nil }
            if waiting.count > waitingLimit, let oldest = waiting.min(by: { $0.value.until! < $1.value.until! }) {
                shut(oldest.key)
            }
        }
    }

    /// Its request came whole: it is answered, whatever that takes.
    func requested(_ id: UInt) { lock.withLock { connections[id]?.until = nil } }

    /// Its answer is sent: a kept-alive connection waits for its next request.
    func answered(_ id: UInt) { lock.withLock { connections[id]?.until = clock.now() + between } }

    /// It is closed (before libmicrohttpd closes its socket: a socket number is never shut twice).
    func closed(_ id: UInt) {
        lock.withLock {
            connections.removeValue(forKey: id)
            if let client = addresses.removeValue(forKey: id) { perClient[client] = perClient[client].map { $0 > 1 ? $0 - 1 : nil } ?? nil }
        }
    }

    /// The client's address as the limits count it: every loopback address is one.
    static func client(of fd: Int32) -> String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) } }
        guard got == 0 else { return "?" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(storage.ss_family) {
        case AF_INET:
            var v4 = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee } }
            if UInt32(bigEndian: v4.sin_addr.s_addr) >> 24 == 127 { return "loopback" }
            inet_ntop(AF_INET, &v4.sin_addr, &text, socklen_t(text.count))
        case AF_INET6:
            var v6 = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee } }
            inet_ntop(AF_INET6, &v6.sin6_addr, &text, socklen_t(text.count))
            let address = Self.text(text)
            if address == "::1" || address.hasPrefix("::ffff:127.") { return "loopback" }
            return address
        default: return "?"
        }
        return Self.text(text)
    }

    private static func text(_ chars: [CChar]) -> String { String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }

    func stop() { lock.withLock { stopped = true } }

    /// Shuts down the connections that waited past their time, twice a second.
    private func sweep() {
        while lock.withLock({ !stopped }) {
            clock.sleep(0.5)
            lock.withLock {
                let now = clock.now()
                for (id, entry) in connections where entry.until.map({ $0 < now }) == true { shut(id) }
            }
        }
    }

    /// Under the lock: ends the connection's socket (its thread sees the end and closes it).
    private func shut(_ id: UInt) {
        guard let entry = connections.removeValue(forKey: id), entry.fd >= 0 else { return }
        shutdown(entry.fd, Int32(SHUT_RDWR))
        cut += 1
    }
}
