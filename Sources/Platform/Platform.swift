import Foundation

/// The few process-wide settings lookd makes of the operating system, in one place.
public enum Platform {
    /// Ignores SIGPIPE (a closed pipe, or a command that exits before reading its input, becomes
    /// EPIPE) and SIGXFSZ (a file past `ulimit -f` becomes EFBIG), so writes fail with a reason
    /// instead of killing the process. Idempotent; every part that writes to pipes calls it.
    public static func ignoreBrokenPipes() { _ = ignored }

    private static let ignored: Bool = {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
        return true
    }()
}
