import Foundation
import LookCore

/// A problem with one value, in words.
struct Problem: Error, ExpressibleByStringInterpolation {
    let text: String
    init(stringLiteral value: String) { text = value }
}

/// The words that name reactions and sounds, shared by the rules file and the inline form, and the
/// checks on their values.
enum ReactionWords {
    /// The longest condition lookd takes: the numbered prompt repeats it, and the model reads it.
    static let maxConditionLength = 200
    static let maxSpokenLength = 500
    static let maxTimerMinutes = 24.0 * 60

    /// The keys of a rule in the file that name its reaction: the enum's, then each `ReactionKind`'s.
    static let fileKeys = ["sound", "say", "timer", "count", "log", "effect", "run", "post"] + ReactionKinds.all.map { $0.key }
    /// The reactions in words, for messages.
    static let listed = fileKeys.dropLast().joined(separator: ", ") + " or " + fileKeys.last!

    static func sound(_ word: String) -> Result<Sound, Problem> {
        if let s = Sound(rawValue: word.lowercased()) { return .success(s) }
        if EffectSound(rawValue: word.lowercased()) != nil {
            return .failure("\"\(word)\" is an effect's sound; a sound rule plays chime, glass or bell")
        }
        return .failure("unknown sound \"\(word)\"; use chime, glass or bell")
    }

    static func effect(_ word: String) -> Result<Effect, Problem> {
        if let e = Effect(rawValue: word.lowercased()) { return .success(e) }
        return .failure("unknown effect \"\(word)\"; use ripple, zoom or spotlight")
    }

    static func effectSound(_ word: String) -> Result<EffectSound, Problem> {
        if let s = EffectSound(rawValue: word.lowercased()) { return .success(s) }
        return .failure("unknown effect sound \"\(word)\"; use water, horn, bells or chime")
    }

    static func timer(_ text: String) -> Result<Double, Problem> {
        let t = text.trimmingCharacters(in: .whitespaces)
        guard let minutes = Double(t), minutes.isFinite else {
            return .failure("a timer is a number of minutes, not \"\(text)\"")
        }
        guard minutes > 0 else { return .failure("a timer needs a positive number of minutes, not \(t)") }
        guard minutes <= maxTimerMinutes else { return .failure("a timer of \(t) minutes is longer than a day") }
        return .success(minutes)
    }

    static func spoken(_ text: String) -> Result<String, Problem> {
        let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !line.isEmpty else { return .failure("say needs a line to speak") }
        if let problem = controlCharacter(in: line, what: "the spoken line") { return .failure(problem) }
        guard line.count <= maxSpokenLength else { return .failure("the spoken line is over \(maxSpokenLength) characters") }
        return .success(line)
    }

    /// A `run:` command: the program must exist and be executable now (a bare name is looked up
    /// in `PATH`); the arguments are kept exactly as written.
    static func command(_ arguments: [String], path: String? = ProcessInfo.processInfo.environment["PATH"]) -> Result<Command, Problem> {
        guard let program = arguments.first, !program.trimmingCharacters(in: .whitespaces).isEmpty else {
            return .failure("run needs a program, like run: [notify-send, \"At the door\"]")
        }
        for argument in arguments {
            if argument.contains("\0") { return .failure("a command's words cannot hold NUL") }
        }
        let manager = FileManager.default
        func runnable(_ file: String) -> Bool {
            var folder: ObjCBool = false
            return manager.fileExists(atPath: file, isDirectory: &folder) && !folder.boolValue && manager.isExecutableFile(atPath: file)
        }
        if program.contains("/") {
            guard manager.fileExists(atPath: program) else { return .failure("the program \(program) does not exist") }
            guard runnable(program) else { return .failure("\(program) is not an executable file") }
            return .success(Command(arguments: arguments, executable: program))
        }
        let folders = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        guard let found = folders.map({ ($0 as NSString).appendingPathComponent(program) }).first(where: runnable) else {
            return .failure("no program \"\(program)\" in PATH; write its full path")
        }
        return .success(Command(arguments: arguments, executable: found))
    }

    /// A `post:` target: an http or https URL with a host; headers are single lines.
    static func post(url: String, format: String? = nil, headers: [(String, String)] = [], snapshot: Bool = false) -> Result<Post, Problem> {
        let text = url.trimmingCharacters(in: .whitespaces)
        if let problem = controlCharacter(in: text, what: "the post's URL") { return .failure(problem) }
        switch Post.urlProblem(text) {
        case .notHTTP: return .failure("post needs an http:// or https:// URL with a host, not \"\(Secrets.masked(url: url))\"")
        case .space: return .failure("the post's URL has a space in it; write %20 for one")
        case .port(let port): return .failure("the post's URL names port \(port); a port is 1 to 65535")
        case nil: break
        }
        var chosen = Post.Format.json
        if let format {
            guard let f = Post.Format(rawValue: format.lowercased()) else { return .failure("format: is json or text, not \"\(format)\"") }
            chosen = f
        }
        if snapshot && chosen == .text { return .failure("snapshot: true needs format: json (a text post is one line)") }
        var list: [Post.Header] = []
        for (name, value) in headers {
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) }) else {
                return .failure("\"\(name.withVisibleControls())\" is not a header name (letters, digits, - and _)")
            }
            if let problem = controlCharacter(in: value, what: "the header \(name)") { return .failure(problem) }
            list.append(Post.Header(name: name, value: value))
        }
        return .success(Post(url: text, format: chosen, headers: list, snapshot: snapshot))
    }

    static func condition(_ text: String) -> Result<String, Problem> {
        let c = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !c.isEmpty else { return .failure("a rule needs a condition: when: <what to look for>") }
        guard c.count <= maxConditionLength else {
            return .failure("the condition is \(c.count) characters; keep it under \(maxConditionLength) (a few words work best)")
        }
        guard !c.contains(where: \.isNewline) else { return .failure("a condition is one line") }
        if let problem = controlCharacter(in: c, what: "the condition") { return .failure(problem) }
        return .success(c)
    }

    /// A control character (ESC, BEL, NUL, DEL, …) would reach terminals, the journal and the model's
    /// prompt as it is: rules are plain words. So would an invisible format character (a bidi
    /// override that shows a condition reversed, a zero-width space that makes two conditions look
    /// alike). Tabs inside a line are words' spacing and pass.
    static func controlCharacter(in text: String, what: String) -> Problem? {
        let invisible: (Unicode.Scalar) -> Bool = {
            $0 != "\t" && ($0.properties.generalCategory == .control || $0.properties.generalCategory == .format)
        }
        guard let bad = text.unicodeScalars.first(where: invisible) else { return nil }
        let code = String(bad.value, radix: 16, uppercase: true)
        let name = controlNames[bad.value].map { " (\($0))" } ?? ""
        return Problem(
            stringLiteral:
                "\(what) holds the control character U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code)\(name); write it in plain words"
        )
    }

    private static let controlNames: [UInt32: String] = [
        0: "NUL", 7: "BEL", 8: "backspace", 0x1B: "ESC", 0x7F: "DEL", 0x0D: "carriage return", 0x200B: "zero-width space",
        0x200C: "zero-width non-joiner", 0x200D: "zero-width joiner", 0x200E: "left-to-right mark", 0x200F: "right-to-left mark",
        0x202A: "left-to-right embedding", 0x202B: "right-to-left embedding", 0x202C: "pop directional formatting",
        0x202D: "left-to-right override", 0x202E: "right-to-left override", 0x2066: "left-to-right isolate",
        0x2067: "right-to-left isolate", 0x2068: "first strong isolate", 0x2069: "pop directional isolate",
        0xFEFF: "zero-width no-break space", 0x00AD: "soft hyphen",
    ]

    /// Warnings for conditions written twice (the same words, ignoring case and spaces).
    static func duplicates(_ rules: [Rule], source: String) -> [String] {
        var seen: [String: Rule] = [:]
        var warnings: [String] = []
        for rule in rules {
            // Compatibility forms fold together (full-width letters, ligatures, non-breaking spaces).
            let key = rule.condition.precomposedStringWithCompatibilityMapping.lowercased().split(whereSeparator: \.isWhitespace)
                .joined(separator: " ")
            if let first = seen[key] {
                let place = rule.line > 0 ? "\(source):\(rule.line):\(rule.column)" : source
                let firstPlace = first.line > 0 ? "line \(first.line)" : "an earlier rule"
                warnings.append("\(place): \"\(rule.condition)\" is already a condition (\(firstPlace)); both rules share one answer")
            } else {
                seen[key] = rule
            }
        }
        return warnings
    }
}
