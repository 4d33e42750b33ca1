import Capture
import Foundation
import LookCore
import Outputs
import Platform
import Records
import Settings
import VLM

/// `lookd ask PHOTO "QUESTION"`: one question about one photo, the answer streamed.
enum AskCommand {
    static let help = """
        Usage: lookd ask PHOTO "QUESTION" [options]

        Answers one question about one photo with the vision-language model, in this process.
        The photo (JPEG, PNG, WebP, …) is turned upright per its EXIF orientation, and a photo whose
        long side is over 4096 px is reduced. The model gets the photo, then the question as typed.
        The answer streams to standard output (inline Markdown rendered on a terminal, the text as
        written otherwise); the numbers lines go to standard error:
            first token 1.01 s · 98.8 tok/s
            CPU · on-device
        Ctrl-C stops the answer: STOPPED, with the answer so far.

        \(SettingCatalog(ModelSettings.askInfos, defaults: ModelSettings.declared.defaults(ModelSettings())).help(groups: [ModelSettings.group]))
        Asking:
          \(SettingName.tokens) N            the most answer tokens (default 256)
          --json FILE           write a record of the question and answer as JSON
          --plain               no Markdown rendering, even on a terminal
          --then "QUESTION"     a follow-up question about the same photo: a new session on the photo as
                                already encoded (as watch asks where a thing is), answered after the first
          --encode-again        encode the photo again for --then (to measure what the reuse saves)

        """ + "\n" + ExitCode.table

    static func run(_ words: [String]) throws(CommandFailure) {
        let (args, photo, question) = try parse(words)
        let maxTokens = try args.integer(SettingName.tokens.key, default: 256, in: 1...8192)
        let settings: ModelSettings
        do { settings = try ModelSettings.resolve(args.given(ModelSettings.askInfos)) } catch { throw usage(error.text) }
        guard !question.isEmpty else { throw CommandFailure(code: .noQuestion, message: "Type a question: lookd ask PHOTO \"QUESTION\".") }
        if let note = settings.askNote(question) { Log.shared.warning(note) }
        let clock = MonotonicClock()
        let started = clock.now()

        let image = try decode(photo)
        let photoSeconds = clock.now() - started

        let engine = try load(settings, clock: clock)
        let readySeconds = clock.now() - started

        let cancellation = Cancellation(clock: clock)
        let trap = SignalTrap { _ in cancellation.cancel() }
        defer { withExtendedLifetime(trap) {} }
        let styled = Terminal.stdoutIsTTY && !args.has("plain")
        let encoded = try encode(image, engine)
        var (generation, render) = try answer(
            question, about: encoded, engine: engine, maxTokens: maxTokens, styled: styled, cancellation: cancellation)
        generation.timings.addEncoding(encoded.encodeSeconds)
        let numbers = NumbersLine.ask(generation.timings)
        report(generation, numbers: numbers, place: engine.place)

        var followUp: JSON?
        if let then = args.value("then")?.trimmingCharacters(in: .whitespacesAndNewlines), !then.isEmpty, generation.stop != .cancelled {
            let again = args.has("encode-again") ? try encode(image, engine) : encoded
            Terminal.out("\n")
            var (second, _) = try answer(then, about: again, engine: engine, maxTokens: maxTokens, styled: styled, cancellation: cancellation)
            if again !== encoded { second.timings.addEncoding(again.encodeSeconds) }
            report(second, numbers: NumbersLine.ask(second.timings), place: engine.place)
            followUp = AskRecord.followUp(then, second)
            if second.stop == .cancelled { generation.stop = .cancelled }
        }

        if let path = args.value("json") {
            try write(
                AskRecord(
                    question: question, photo: photo, photoSize: [image.width, image.height], engine: engine.engineName,
                    model: (engine as? LlamaEngine)?.modelPath ?? (engine as? RemoteEngine)?.settings.model ?? "",
                    mmproj: (engine as? LlamaEngine)?.mmprojPath ?? "", visionWeights: (engine as? LlamaEngine)?.visionWeights,
                    photoDecodeSeconds: photoSeconds,
                    engineReadySeconds: (engine as? LlamaEngine)?.loadSeconds ?? 0, readySeconds: readySeconds, generation: generation,
                    answerShown: render.shown, numbersLine: numbers, footer: engine.place, maxTokens: maxTokens, then: followUp, time: clock.date()),
                to: path)
        }
        if generation.stop == .cancelled { throw CommandFailure(code: .stopped, message: "") }
        if let reason = StandardStream.output.closed {
            let kept = args.value("json").map { "; the whole answer is in \($0)" } ?? ""
            throw CommandFailure(code: .failure, message: "Standard output was closed while the answer was written (\(reason))\(kept).")
        }
    }

    /// The options, the photo and the question (a photo first: without one, that is what is said).
    private static func parse(_ words: [String]) throws(CommandFailure) -> (Arguments, photo: String, question: String) {
        let model = Arguments.names(ModelSettings.askInfos)
        let args = try Arguments(
            words, valued: model.valued.union([SettingName.tokens.key, "json", "then"]), switches: model.switches.union(["plain", "encode-again"]))
        guard let photo = args.positional.first else {
            throw CommandFailure(code: .noPhoto, message: "Choose a photo first: lookd ask PHOTO \"QUESTION\".")
        }
        guard args.positional.count <= 2 else { throw usage("ask takes one photo and one question; put the question in quotes") }
        let question = (args.positional.count > 1 ? args.positional[1] : "").trimmingCharacters(in: .whitespacesAndNewlines)
        return (args, photo, question)
    }

    /// The photo, decoded; one that is missing or cannot be read is said with its exit code.
    private static func decode(_ photo: String) throws(CommandFailure) -> RGBImage {
        do {
            return try PhotoDecoder.decode(path: photo)
        } catch {
            switch error {
            case .noPhoto: throw CommandFailure(code: .noPhoto, message: error.description)
            default: throw CommandFailure(code: .unreadablePhoto, message: error.description)
            }
        }
    }

    /// The model, loaded (on a terminal, "Loading the model…" while it loads).
    private static func load(_ settings: ModelSettings, clock: any Clock) throws(CommandFailure) -> any VisionLanguageModel {
        let loading = Terminal.stderrIsTTY && settings.engine == nil
        if loading { StandardStream.error.write("Loading the model…\r") }
        defer { if loading { StandardStream.error.write("\u{1B}[2K\r") } }
        do { return try settings.load(clock: clock) } catch { throw CommandFailure(error) }
    }

    /// The photo encoded by the model's vision tower.
    private static func encode(_ image: RGBImage, _ engine: any VisionLanguageModel) throws(CommandFailure) -> EncodedImage {
        do { return try engine.encode(image) } catch { throw CommandFailure(code: .failure, message: "FAILED: \(error)") }
    }

    /// `--json FILE`: the ask's record.
    private static func write(_ record: AskRecord, to path: String) throws(CommandFailure) {
        do throws(SafeFile.Failure) {
            try record.write(to: path)
        } catch {
            throw CommandFailure(code: .failure, message: "The record could not be written: \(error.description).")
        }
    }

    /// The numbers lines under an answer (STOPPED first when it was cut short).
    private static func report(_ generation: Generation, numbers: String, place: String) {
        let tty = Terminal.stderrIsTTY
        if generation.stop == .cancelled { Terminal.err("STOPPED") }
        if generation.stop == .contextFull {
            Terminal.err("The answer stopped where the context was full (a larger \(SettingName.context) fits it).")
        }
        Terminal.err(Terminal.dim(numbers, on: tty))
        Terminal.err(Terminal.dim(place, on: tty))
    }

    /// Streams the answer to one question about the encoded photo.
    private static func answer(
        _ question: String, about image: EncodedImage, engine: any VisionLanguageModel, maxTokens: Int, styled: Bool,
        cancellation: Cancellation
    ) throws(CommandFailure) -> (Generation, MarkdownStream) {
        var render = MarkdownStream(styled: styled)
        let generation: Generation
        do {
            generation = try engine.generate(image: image, prompt: question, maxTokens: maxTokens, cancellation: cancellation) { piece in
                Terminal.out(styled ? render.feed(piece) : piece)
                if !styled { _ = render.feed(piece) }
            }
        } catch {
            throw CommandFailure(code: .failure, message: "FAILED: \(error)")
        }
        let tail = render.finish()
        Terminal.out((styled ? tail : "") + "\n")
        return (generation, render)
    }
}
