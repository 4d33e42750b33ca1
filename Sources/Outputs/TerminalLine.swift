import LookCore
import Records

/// The terminal's status line under `lookd watch`: each frame's answers and numbers on one line
/// that is written over, on a terminal only; a line break once the run stops.
public final class TerminalLine: WatchOutput, @unchecked Sendable {
    public let name = "terminal"
    private let isTerminal: Bool
    private var shown = false

    public init(isTerminal: Bool) { self.isTerminal = isTerminal }

    public func receive(_ event: WatchEvent) {
        guard isTerminal, case .frame(let frame, _, _) = event else { return }
        let answers = frame.answers.enumerated().map { "\($0.offset + 1). \($0.element.rawValue)" }.joined(separator: " ")
        StandardStream.error.write("\u{1B}[2K\r\(answers) · \(frame.numbers) · \(frame.place)")
        shown = true
    }

    public func stop() { if shown { StandardStream.error.write("\n") } }
}
