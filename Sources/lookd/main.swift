import Foundation
import LookCore

/// lookd's entry: one subcommand per concern, each in its own file.
let version = "lookd 0.1.0"

let help = """
    lookd: a camera, rules written in words, and a vision-language model in this process.

    Usage:
      lookd ask PHOTO "QUESTION" [options]   answer one question about one photo (lookd ask --help)
      lookd watch --source S --rules R [options]   watch a video, stream or photos (lookd watch --help)
      lookd check FILE                       check a rules file and print the rules as understood
      lookd status                           what the running watch (the service) is doing
      lookd models                           the model catalog and the model cache
      lookd models inspect FILE [MMPROJ]     what a GGUF pair is and whether lookd runs it
      lookd pull ID                          download a model into the cache
      lookd --help | --version

    The model runs on this machine's CPU through llama.cpp; no picture leaves the machine.
    Set LOOKD_LOG=debug (or info, notice, warning, error) to see more or less of lookd's and
    llama.cpp's log on standard error.

    """ + "\n" + ExitCode.table

func main() -> Int32 {
    StandardStream.ignoreSignals()
    var words = Array(CommandLine.arguments.dropFirst())
    guard let command = words.first else {
        Terminal.err(help)
        return ExitCode.usage.rawValue
    }
    words.removeFirst()
    do throws(CommandFailure) {
        switch command {
        case "ask":
            if words.contains("--help") || words.contains("-h") { print(AskCommand.help); return 0 }
            try AskCommand.run(words)
        case "watch":
            if words.contains("--help") || words.contains("-h") { print(WatchCommand.help); return 0 }
            try WatchCommand.run(words)
        case "check":
            if words.contains("--help") || words.contains("-h") { print(CheckCommand.help); return 0 }
            try CheckCommand.run(words)
        case "status":
            if words.contains("--help") || words.contains("-h") { print(StatusCommand.help); return 0 }
            try StatusCommand.run(words)
        case "models":
            if words.contains("--help") || words.contains("-h") { print(ModelsCommand.help); return 0 }
            if words.first == "inspect" {
                try ModelsCommand.inspect(Array(words.dropFirst()))
            } else if let extra = words.first {
                throw usage("models takes no \(extra) (lookd models, or lookd models inspect FILE)")
            } else {
                ModelsCommand.list()
            }
        case "pull":
            if words.contains("--help") || words.contains("-h") { print(ModelsCommand.help); return 0 }
            try ModelsCommand.pull(words)
        case "--help", "-h", "help":
            print(help)
        case "--version", "version":
            print(version)
        default:
            throw usage("unknown command \"\(command)\"")
        }
        return ExitCode.done.rawValue
    } catch {
        if !error.message.isEmpty { Terminal.err(Terminal.stderrIsTTY ? error.message : "lookd: \(error.message)") }
        return error.code.rawValue
    }
}

exit(main())
