import LookCore
import Rules

/// `lookd check FILE`: checks a rules file (or inline rules) and prints the rules as lookd reads them.
enum CheckCommand {
    static let help = """
        Usage: lookd check FILE|"a=b|…"

        Checks a rules file and prints each rule as lookd understood it, its reaction in the inline
        form's words, and the numbered question each frame will get. A problem is reported with the
        file, line and column; warnings (a condition written twice) follow the rules.
        Exit status: 0 when the rules are valid, 2 when they are not.
        """

    static func run(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, valued: [], switches: [])
        guard args.positional.count == 1 else { throw usage("check takes one rules file") }
        let spec = args.positional[0]
        let set: RuleSet
        do {
            set = try RuleSpec.load(spec).rules
        } catch {
            throw CommandFailure(code: .usage, message: error.description)
        }
        print("\(set.rules.count) rule\(set.rules.count == 1 ? "" : "s") in \(spec):")
        for (i, rule) in set.rules.enumerated() {
            let place = rule.line > 0 ? "  (line \(rule.line))" : ""
            print("  \(i + 1). \(rule.condition) → \(rule.reaction.inlineForm)\(place)")
        }
        print("\nEach frame asks:\n" + WatchPrompt.text(for: set.rules).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        for warning in set.warnings { print("warning: \(warning)") }
    }
}
