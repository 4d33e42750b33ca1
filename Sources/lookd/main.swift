import Foundation
import LookCore
import Platform

/// lookd's entry: one subcommand per concern, each in its own file.
let version = "lookd 0.1.0"

let help = """
    lookd: a camera, rules written in words, and a vision-language model in this process.

    Usage:
      lookd ask PHOTO "QUESTION" [options]   answer one question about one photo (lookd ask --help)
      lookd watch \(SettingName.source) S \(SettingName.rules) R [options]   watch a video, stream or photos (lookd watch --help)
      lookd watch \(SettingName.camera) N=S … \(SettingName.rules) R   watch several cameras with one model (docs/cameras.md)
      lookd check FILE [\(SettingName.truth) FILE]        check a rules file (and a truth file) and print the rules as understood
      lookd eval \(SettingName.source) CLIP \(SettingName.rules) R \(SettingName.truth) T   score rules against a labelled clip (lookd eval --help)
      lookd tune \(SettingName.record) RUN.json \(SettingName.truth) T  replay a run's answers to choose firing settings
      lookd status                           what the running watch (the service) is doing
      lookd history [--rule W] [--since T]   the fires kept, newest first (lookd history --help)
      lookd models                           the model catalog and the model cache
      lookd models inspect FILE [MMPROJ]     what a GGUF pair is and whether lookd runs it
      lookd pull ID                          download a model into the cache
      lookd --help | --version

    The model runs on this machine's CPU through llama.cpp; no picture leaves the machine.
    Set LOOKD_LOG=debug (or info, notice, warning, error) to see more or less of lookd's and
    llama.cpp's log on standard error.

    """ + "\n" + ExitCode.table

func main() -> Int32 {
    Platform.ignoreBrokenPipes()
    var words = Array(CommandLine.arguments.dropFirst())
    guard let command = words.first else {
        Terminal.err(help)
        return ExitCode.usage.rawValue
    }
    words.removeFirst()
    // Each command's help is made only when it is asked for (some read the model cache).
    let helps: [String: () -> String] = [
        "ask": { AskCommand.help }, "watch": { WatchCommand.help }, "check": { CheckCommand.help }, "status": { StatusCommand.help },
        "models": { ModelsCommand.help }, "pull": { ModelsCommand.help }, "eval": { EvalCommand.help }, "tune": { EvalCommand.tuneHelp },
        "history": { HistoryCommand.help },
    ]
    if let text = helps[command], words.contains("--help") || words.contains("-h") {
        print(text())
        return 0
    }
    do throws(CommandFailure) {
        switch command {
        case "ask": try AskCommand.run(words)
        case "watch": try WatchCommand.run(words)
        case "check": try CheckCommand.run(words)
        case "eval": try EvalCommand.run(words)
        case "tune": try EvalCommand.tune(words)
        case "status": try StatusCommand.run(words)
        case "history": try HistoryCommand.run(words)
        case "models":
            if words.first == "inspect" {
                try ModelsCommand.inspect(Array(words.dropFirst()))
            } else if let extra = words.first {
                throw usage("models takes no \(extra) (lookd models, or lookd models inspect FILE)")
            } else {
                ModelsCommand.list()
            }
        case "pull": try ModelsCommand.pull(words)
        case "--help", "-h", "help":
            print(help)
        case "--version", "version":
            print(version)
        default:
            throw usage("unknown command \"\(command)\"")
        }
        return ExitCode.done.rawValue
    } catch {
        if !error.message.isEmpty { Terminal.err(Terminal.stderrIsTTY ? error.message : "lookd: \(error.message)", level: .error) }
        return error.code.rawValue
    }
}

exit(main())
