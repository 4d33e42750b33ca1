import LookCore
import Records
import Rules
import Settings

/// `lookd check FILE`: checks a rules file (or inline rules) and prints the rules as lookd reads them.
enum CheckCommand {
    static let help = """
        Usage: lookd check FILE|"a=b|…" [\(SettingName.truth) TRUTH.yaml] [--json] [watch options]

        Checks a rules file and prints each rule as lookd understood it, its reaction in the inline
        form's words, and the numbered question each frame will get. A problem is reported with the
        file, line and column; warnings (a condition written twice) follow the rules. Then the tokens a
        frame needs, estimated without a model (about 3 bytes a token, a picture 320), against the
        context (\(SettingName.context), the watch's default 4096): rules that do not fit are refused (the watch
        counts them exactly with the model's tokenizer when it starts).
        Then every watch setting in force: its value, and where it came from (its default, the file's
        settings: with the line, the environment, or a flag given here as to lookd watch); "live" marks
        those a reload changes at once. A setting given without what it needs is refused.
        --json prints the same as one JSON object (rules, prompt, token estimates, settings), for scripts.
        \(SettingName.truth) checks a truth file for lookd eval against the rules (spans in order, rules that exist).
        A source that is a file or folder (the one source's, or a camera's) must exist.
        Exit status: 0 when the rules (and the truth) are valid, 2 when they are not, 7 when a source's
        file or folder does not exist.
        """

    static func run(_ words: [String]) throws(CommandFailure) {
        let infos = WatchSettings.declared.infos
        let names = Arguments.names(infos)
        let args = try Arguments(words, valued: names.valued, switches: names.switches.union(["json"]), bare: names.bare)
        guard args.positional.count == 1 else { throw usage("check takes one rules file") }
        let spec = args.positional[0]
        let set: RuleSet
        do { set = try RuleSpec.load(spec).rules } catch { throw CommandFailure(code: .usage, message: error.description) }
        let plan = CameraPlan(spec: spec, flags: args.given(infos).merging([SettingName.rules.key: GivenSetting(spec, from: .flag)]) { $1 })
        let given: [String: GivenSetting]
        var setup: WatchSetup
        do throws(SettingProblem) {
            given = try WatchSettings.given(flags: plan.flags, file: set.settings, needs: !plan.namesCameras(set))
            setup = try WatchSettings.setup(given, needsSource: false)
        } catch {
            throw usage(error.text)
        }
        setup.watch.takeSnapshots(for: set.rules)
        var check = RulesCheck(spec: spec, set: set, setup: setup, settings: WatchSettings.declared.inForce(setup, given: given))
        do throws(CameraPlan.Problem) {
            if plan.namesCameras(set) { check.cameras = try plan.cameras(of: set, source: spec) }
        } catch {
            throw CommandFailure(error)
        }
        print(args.has("json") ? check.json.text(indent: 1) : check.text)
        if let problem = check.budgetProblem { throw CommandFailure(code: .usage, message: problem) }
        if let problem = check.missingSource { throw CommandFailure(code: .badSource, message: problem) }
        guard let path = args.value(.truth) else { return }
        do throws(RulesError) {
            let truth = try TruthFile.load(path: path)
            if let problem = truth.problems(against: set.rules).first { throw problem }
            // With --json, the JSON above is all standard output holds: the truth's summary goes to
            // standard error.
            let (head, missing) = truth.summary(path: path, rules: set.rules)
            if args.has("json") { Terminal.err(head) } else { print(([head] + missing).joined(separator: "\n")) }
        } catch {
            throw CommandFailure(code: .usage, message: error.description)
        }
    }
}
