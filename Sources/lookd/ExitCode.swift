import Settings

/// lookd's exit codes, as `lookd --help` lists them.
enum ExitCode: Int32, CaseIterable {
    case done = 0, failure = 1, usage = 2, noPhoto = 3, noQuestion = 4, unreadablePhoto = 5, modelFailed = 6, badSource = 7
    case stopped = 130

    /// What the code means, in `--help`'s words.
    var meaning: String {
        switch self {
        case .done: return "done"
        case .failure:
            return "runtime failure (the model failed while answering, or on 5 frames in a row; a record could not be written; output closed)"
        case .usage: return "bad usage or bad rules (unknown command or option, a bad value, a rules file with a problem, rules past the context)"
        case .noPhoto: return "no photo (none given, or the path does not exist)"
        case .noQuestion: return "empty question"
        case .unreadablePhoto: return "the photo could not be read"
        case .modelFailed: return "the model did not load (or could not be downloaded)"
        case .badSource:
            return "the source cannot be opened (watch: no source, or a camera of several, was watched; check: a source's file is not there)"
        case .stopped: return "stopped by Ctrl-C while answering (the answer so far is printed)"
        }
    }

    static var table: String {
        "Exit codes:\n"
            + allCases.map { "  " + String($0.rawValue).padding(toLength: 5, withPad: " ", startingAt: 0) + $0.meaning }
            .joined(separator: "\n")
    }
}

/// An error that ends the command with its exit code and one sentence on standard error.
struct CommandFailure: Error {
    let code: ExitCode
    let message: String
}

extension CommandFailure {
    /// The rules or the settings of a watch's cameras that cannot be read (`CameraPlan`): a usage error.
    init(_ problem: CameraPlan.Problem) {
        switch problem {
        case .rules(let error): self.init(code: .usage, message: error.description)
        case .setting(let error): self = usage(error.text)
        }
    }

    /// A model that cannot run (`ModelSettings.load`): a usage error, or a failed load (exit 6).
    init(_ failure: ModelLoadFailure) {
        switch failure {
        case .usage(let text): self = usage(text)
        case .failed(let text): self.init(code: .modelFailed, message: text)
        }
    }
}
