import Foundation
import LookCore

/// A command from outside the loop: Home Assistant's switch for a rule, its button that resets a
/// count, or its switch for the whole watch (a camera). `by` names where it came from (`mqtt`), for the event log.
public enum RuleCommand: Sendable, Equatable {
    /// Turns a rule on or off: an off rule is not asked, and so never fires.
    case switchRule(condition: String, on: Bool, by: String)
    /// Sets a count rule's count back to 0.
    case resetCount(condition: String, by: String)
    /// Turns the whole watch on or off: off, a camera is paused (no rule is asked) until turned on.
    case watch(on: Bool, by: String)
}

/// Commands posted from any thread (an output's network thread) and taken by the loop before its
/// next frame, in the order they came. Bounded: a command for a rule replaces one of the same kind
/// still waiting for that rule (the latest switch wins; resets are one), so a flood of thousands
/// leaves the loop at most two a rule to take.
public final class RuleCommands: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [RuleCommand] = []
    /// Commands that replaced one still waiting (a flood's repeats).
    public private(set) var coalesced = 0

    public init() {}

    public func post(_ command: RuleCommand) {
        lock.withLock {
            if let i = pending.firstIndex(where: { $0.sameKind(as: command) }) {
                pending.remove(at: i)
                coalesced += 1
            }
            pending.append(command)
        }
    }

    /// The commands posted since the last take.
    public func take() -> [RuleCommand] {
        lock.withLock {
            defer { pending = [] }; return pending
        }
    }
}

extension RuleCommand {
    /// Whether both act on one rule the same way (a switch, or a reset), so the later replaces the earlier.
    func sameKind(as other: RuleCommand) -> Bool {
        switch (self, other) {
        case (.switchRule(let a, _, _), .switchRule(let b, _, _)): return a == b
        case (.resetCount(let a, _), .resetCount(let b, _)): return a == b
        case (.watch, .watch): return true
        default: return false
        }
    }
}

/// What a command did: a rule switched on or off, a count reset, or a command refused (a rule that
/// is not in force, or one written `enabled: false`, which only the file can turn on).
public struct CommandOutcome: Sendable {
    public var command: RuleCommand
    public var refused: String?

    public init(command: RuleCommand, refused: String? = nil) { (self.command, self.refused) = (command, refused) }

    /// Why a command cannot act on the rule `condition`: it is not in force (written
    /// `enabled: false`, which only the rules file at `source` can turn on, or not in it at all).
    public static func refusal(_ condition: String, inForce: [String], disabled: Set<String>, source: String) -> String? {
        if inForce.contains(condition) { return nil }
        if disabled.contains(condition) {
            return "\"\(condition)\" is written enabled: false in \(source); edit the file and reload to turn it on"
        }
        return "no rule \"\(condition)\" is in force"
    }

    /// The event log's `command` line.
    public var fields: [(String, JSON)] {
        var fields: [(String, JSON)]
        switch command {
        case .switchRule(let condition, let on, let by):
            fields = [("action", .string(on ? "switch_on" : "switch_off")), ("condition", .string(condition)), ("by", .string(by))]
        case .resetCount(let condition, let by):
            fields = [("action", .string("reset_count")), ("condition", .string(condition)), ("by", .string(by))]
        case .watch(let on, let by): fields = [("action", .string(on ? "resume" : "pause")), ("by", .string(by))]
        }
        return fields + [("accepted", .bool(refused == nil)), ("refused", .optional(refused))]
    }
}
