import Foundation

/// Waits in real time for what another thread or program does (a broker's answer, a process's
/// exit, a file written): looks every `slice` seconds until `done` holds or `seconds` pass. The
/// tests' one polling wait: time that a test's own clock can drive is moved with `ManualClock`.
public enum Poll {
    /// Whether `done` held within `seconds`.
    @discardableResult
    public static func until(within seconds: Double = 10, every slice: Double = 0.02, _ done: () throws -> Bool) rethrows -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while try !done() {
            guard Date() < deadline else { return false }
            usleep(useconds_t(slice * 1_000_000))
        }
        return true
    }
}
