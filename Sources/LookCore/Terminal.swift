import Foundation
import Platform

/// Where a command's output goes and whether it is a terminal.
public enum Terminal {
    public static var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }
    public static var stderrIsTTY: Bool { isatty(STDERR_FILENO) == 1 }

    /// Writes to standard output at once (the answer streams).
    public static func out(_ text: String) {
        StandardStream.output.write(text)
    }

    /// Writes a line to standard error; under the journal with its priority (`<5>`), as every
    /// line the journal takes has one.
    public static func err(_ line: String, level: Log.Level = .notice) {
        let priority = Log.stderrIsJournal() ? "<\(level.rawValue)>" : ""
        StandardStream.error.write(priority + Secrets.maskedPasswords(in: line) + "\n")
    }

    /// Dims `text` on a terminal (the numbers lines).
    public static func dim(_ text: String, on tty: Bool) -> String { tty ? "\u{1B}[2m\(text)\u{1B}[22m" : text }
}
