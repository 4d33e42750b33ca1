import Foundation
import LookCore

/// One camera's side of the service's one notifier, in a watch of several cameras: systemd hears
/// `READY=1` once every camera has said it, `WATCHDOG=1` only while every camera's loop is alive (a
/// camera stuck is caught though the others answer), and each camera's `STATUS=` with its name.
public final class CameraNotifier: ServiceNotifier, @unchecked Sendable {
    /// What the cameras have told the manager, shared by their notifiers.
    public final class Quorum: @unchecked Sendable {
        private let lock = NSLock()
        private var cameras: Set<String> = []
        private var ready: Set<String> = []
        private var readySent = false
        private var alive: [String: Double] = [:]

        public init() {}

        /// A camera joins (its watch starts), or leaves (it ended, or a reload took it out).
        public func join(_ camera: String) { lock.withLock { _ = cameras.insert(camera) } }
        public func leave(_ camera: String) {
            lock.withLock {
                cameras.remove(camera)
                alive[camera] = nil
            }
        }

        /// `camera` is ready; true once, when every camera is.
        func ready(_ camera: String) -> Bool {
            lock.withLock {
                ready.insert(camera)
                guard !readySent, cameras.isSubset(of: ready) else { return false }
                readySent = true
                return true
            }
        }

        /// `camera`'s loop is alive at `now`; whether every camera's was within `within` seconds.
        func alive(_ camera: String, at now: Double, within: Double) -> Bool {
            lock.withLock {
                alive[camera] = now
                return cameras.allSatisfy { alive[$0].map { now - $0 <= within } ?? false }
            }
        }
    }

    private let camera: String
    private let shared: any ServiceNotifier
    private let quorum: Quorum
    private let clock: any Clock

    public init(camera: String, shared: any ServiceNotifier, quorum: Quorum, clock: any Clock) {
        (self.camera, self.shared, self.quorum, self.clock) = (camera, shared, quorum, clock)
    }

    public func ready(status: String) {
        if quorum.ready(camera) { shared.ready(status: "\(camera): \(status)") } else { shared.status("\(camera): \(status)") }
    }
    public func status(_ text: String) { shared.status("\(camera): \(text)") }
    public func reloading() { shared.reloading() }
    public func stopping() { shared.stopping() }
    public func watchdog() {
        guard let interval = shared.watchdogInterval else { return }
        if quorum.alive(camera, at: clock.now(), within: interval) { shared.watchdog() }
    }
    public var watchdogInterval: Double? { shared.watchdogInterval }
}
