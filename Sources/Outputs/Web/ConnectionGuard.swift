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
/// A connection being answered (a page, an event stream) is not the guard's.
final class ConnectionGuard: @unchecked Sendable {
    let firstRequest: Double
    let between: Double
    let waitingLimit: Int
    private let clock: any Clock
    private let lock = NSLock()
    /// Each connection (libmicrohttpd's pointer, as a number): its socket, and until when it may
    /// wait for a request (nil: being answered).
    private var connections: [UInt: (fd: Int32, until: Double?)] = [:]
    private var stopped = false
    private(set) var cut = 0

    init(clock: any Clock, firstRequest: Double = 5, between: Double = 3, waitingLimit: Int) {
        (self.clock, self.firstRequest, self.between, self.waitingLimit) = (clock, firstRequest, between, max(1, waitingLimit))
        let thread = Thread { [self] in sweep() }
        thread.name = "lookd page guard"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    /// A connection came: it waits for its first request.
    func started(_ id: UInt, fd: Int32) {
        lock.withLock {
            connections[id] = (fd, clock.now() + firstRequest)
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
    func closed(_ id: UInt) { _ = lock.withLock { connections.removeValue(forKey: id) } }

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
