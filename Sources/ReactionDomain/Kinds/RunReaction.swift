import Foundation
import LookCore

/// `run: [program, arg, …]`, `run: program arg …` (split at spaces), or
/// `run: {command: […], wait: description|clip}` (inline: `run:program arg …`): a command started
/// with the fire, without a shell, with the fire in its environment and on its standard input.
public struct RunReaction: ReactionKind {
    public static let key = "run"
    public static var inlineHelp: String { "run:<program>" }
    public static var inlineExample: String { "run:notify-send Door" }

    public var command: Command

    public init(command: Command) { self.command = command }

    public var name: String { "run" }
    /// A word with spaces is shown quoted (the inline form itself splits at spaces).
    public var inlineForm: String {
        "run:" + command.arguments.map { $0.contains(where: \.isWhitespace) || $0.isEmpty ? "\"\($0)\"" : $0 }.joined(separator: " ")
    }
    /// As records and screens show it: a URL shows scheme, user, host and port, and the values of
    /// secret-looking arguments are masked (`Secrets.masked(commandArguments:)`).
    public var shownForm: String {
        "run:"
            + Secrets.masked(commandArguments: command.arguments).map { shown in
                shown.contains(where: \.isWhitespace) || shown.isEmpty ? "\"\(shown)\"" : shown
            }.joined(separator: " ")
    }
    public var outboundURLs: [String] { command.arguments.filter { $0.contains("://") } }
    public var checkedForm: String {
        shownForm + (command.waitForDescription ? " (wait: description)" : command.waitForClip ? " (wait: clip)" : "")
    }
    public var waitsForDescription: Bool { command.waitForDescription }
    public var waitsForClip: Bool { command.waitForClip }

    public static func read(_ value: ReactionValue) throws(ReactionProblem) -> RunReaction {
        RunReaction(command: try command(value))
    }

    public static func inline(_ text: String) throws(ReactionProblem) -> RunReaction {
        RunReaction(command: try checked(text.split(whereSeparator: \.isWhitespace).map(String.init), at: nil))
    }

    private static func command(_ value: ReactionValue) throws(ReactionProblem) -> Command {
        switch value {
        case .word(let text, _, _): return try checked(text.split(whereSeparator: \.isWhitespace).map(String.init), at: value)
        case .list(let items, _, _):
            var words: [String] = []
            for item in items {
                guard let text = item.text else { throw item.problem("run: is a list of words: [program, argument, …]") }
                words.append(text)
            }
            return try checked(words, at: value)
        case .map(let pairs, _, _):
            var command: Command?
            var wait = "none"
            for (key, item) in pairs {
                switch key {
                case "command":
                    guard item.text != nil || { if case .list = item { true } else { false } }() else {
                        throw item.problem("run: command: is a list of words: [program, argument, …]")
                    }
                    command = try Self.command(item)
                case "wait":
                    guard let t = item.text?.lowercased(), ["description", "clip", "none"].contains(t) else {
                        throw item.problem(
                            "wait: is description (the command starts with the fire's description), clip (with its clip, LOOKD_CLIP) or none")
                    }
                    wait = t
                default: throw item.problem("unknown key \"\(key)\" in run:; use command or wait")
                }
            }
            guard var command else { throw value.problem("run: as a map needs command: [program, argument, …]") }
            (command.waitForDescription, command.waitForClip) = (wait == "description", wait == "clip")
            return command
        }
    }

    /// The program must exist and be executable now (a bare name is looked up in `PATH`); the
    /// arguments are kept exactly as written.
    static func checked(
        _ arguments: [String], at value: ReactionValue?, path: String? = ProcessInfo.processInfo.environment["PATH"]
    ) throws(ReactionProblem) -> Command {
        guard let program = arguments.first, !program.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ReactionProblem("run needs a program, like run: [notify-send, \"At the door\"]", at: value)
        }
        if arguments.contains(where: { $0.contains("\0") }) { throw ReactionProblem("a command's words cannot hold NUL", at: value) }
        let manager = FileManager.default
        func runnable(_ file: String) -> Bool {
            var folder: ObjCBool = false
            return manager.fileExists(atPath: file, isDirectory: &folder) && !folder.boolValue && manager.isExecutableFile(atPath: file)
        }
        if program.contains("/") {
            guard manager.fileExists(atPath: program) else { throw ReactionProblem("the program \(program) does not exist", at: value) }
            guard runnable(program) else { throw ReactionProblem("\(program) is not an executable file", at: value) }
            return Command(arguments: arguments, executable: program)
        }
        let folders = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        guard let found = folders.map({ ($0 as NSString).appendingPathComponent(program) }).first(where: runnable) else {
            throw ReactionProblem("no program \"\(program)\" in PATH; write its full path", at: value)
        }
        return Command(arguments: arguments, executable: found)
    }

    public func perform(_ fire: FireContext, _ services: any ReactionServices) -> ReactionResult { services.start(command, fire: fire) }
}
