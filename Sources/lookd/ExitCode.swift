/// lookd's exit codes, as `lookd --help` lists them.
enum ExitCode: Int32 {
    case done = 0
    /// Something failed while running (the model failed mid-answer, a record could not be written).
    case failure = 1
    /// The command line is wrong (an unknown command or option, a missing or bad value), or the rules are.
    case usage = 2
    /// `ask` without a photo, or with a path that does not exist.
    case noPhoto = 3
    /// `ask` with an empty question.
    case noQuestion = 4
    /// The photo exists but cannot be decoded.
    case unreadablePhoto = 5
    /// The model did not load (missing, not a GGUF, mismatched or unsupported files).
    case modelFailed = 6
    /// `watch`: the source cannot be opened (no such file, not a video, a stream that does not answer).
    case badSource = 7
    /// Stopped by Ctrl-C (SIGINT) or SIGTERM while answering; the answer so far was kept.
    case stopped = 130

    static let table = """
        Exit codes:
          0    done
          1    runtime failure (the model failed while answering, a record could not be written)
          2    bad usage or bad rules (unknown command or option, a bad value, a rules file with a problem)
          3    no photo (none given, or the path does not exist)
          4    empty question
          5    the photo could not be read
          6    the model did not load (or could not be downloaded)
          7    the source cannot be opened (watch)
          130  stopped by Ctrl-C while answering (the answer so far is printed)
        """
}

/// An error that ends the command with its exit code and one sentence on standard error.
struct CommandFailure: Error {
    let code: ExitCode
    let message: String
}
