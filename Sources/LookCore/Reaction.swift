/// What a rule does when it fires.
public enum Reaction: Sendable, Equatable {
    case sound(Sound)
    case say(String)
    case timer(minutes: Double)
    case count
    case log
    /// The frame is held and edited at the thing's place, with the edit's sound (its own unless chosen).
    case effect(Effect, sound: EffectSound)
    /// A command started with the fire (no shell).
    case run(Command)
    /// An HTTP POST of the fire.
    case post(Post)
    /// A kind written as one type in one file (`ReactionKinds.all`).
    case kind(any ReactionKind)

    public static func == (a: Reaction, b: Reaction) -> Bool {
        switch (a, b) {
        case (.sound(let x), .sound(let y)): x == y
        case (.say(let x), .say(let y)): x == y
        case (.timer(let x), .timer(let y)): x == y
        case (.count, .count), (.log, .log): true
        case (.effect(let e, let s), .effect(let f, let t)): e == f && s == t
        case (.run(let x), .run(let y)): x == y
        case (.post(let x), .post(let y)): x == y
        case (.kind(let x), .kind(let y)): x.isSame(as: y)
        case (.sound, _), (.say, _), (.timer, _), (.count, _), (.log, _), (.effect, _), (.run, _), (.post, _), (.kind, _): false
        }
    }

    /// The reaction's name in records and status (`chime`, `say`, `timer`, `count`, `log`, `ripple · water`).
    public var name: String {
        switch self {
        case .sound(let s): return s.rawValue
        case .say: return "say"
        case .timer: return "timer"
        case .count: return "count"
        case .log: return "log"
        case .effect(let e, let s): return "\(e.rawValue) · \(s.rawValue)"
        case .run: return "run"
        case .post: return "post"
        case .kind(let k): return k.name
        }
    }

    /// The inline form as records and screens show it: a post's URL with its secrets masked.
    public var shownForm: String {
        if case .post(let p) = self { return "post:" + Secrets.masked(url: p.url) }
        if case .kind(let k) = self { return k.shownForm }
        return inlineForm
    }

    /// Everything the rule says about its reaction, for `lookd check`: the inline form with an
    /// effect's sound always named, and a post's or command's options (secrets masked).
    public var checkedForm: String {
        switch self {
        case .effect(let e, let s): return "effect:\(e.rawValue)/\(s.rawValue)" + (s == e.ownSound ? " (its own sound)" : "")
        case .post(let p):
            var options = [p.format.rawValue]
            if p.snapshot { options.append("with the snapshot") }
            options += p.headers.map { "header \($0.name): \(Secrets.mask)" }
            if p.waitForDescription { options.append("wait: description") }
            if p.waitForClip { options.append("wait: clip") }
            return shownForm + " (" + options.joined(separator: ", ") + ")"
        case .run(let c): return inlineForm + (c.waitForDescription ? " (wait: description)" : c.waitForClip ? " (wait: clip)" : "")
        case .kind(let k): return k.checkedForm
        case .sound, .say, .timer, .count, .log: return shownForm
        }
    }

    /// Whether it counts (`count: true`).
    public var isCount: Bool { self == .count }

    /// The kind, without its detail: `sound`, `say`, `timer`, `count`, `log`, `effect`.
    public var kind: String {
        switch self {
        case .sound: return "sound"
        case .say: return "say"
        case .timer: return "timer"
        case .count: return "count"
        case .log: return "log"
        case .effect: return "effect"
        case .run: return "run"
        case .post: return "post"
        case .kind(let k): return type(of: k).key
        }
    }

    /// Whether it cannot go without the fire's snapshot (a watch without `--snapshots` refuses it).
    public var needsSnapshot: Bool {
        if case .kind(let k) = self { return k.needsSnapshot }
        return false
    }

    /// Whether it goes once the fire's description is in (`wait: description`).
    public var waitsForDescription: Bool {
        switch self {
        case .run(let c): c.waitForDescription
        case .post(let p): p.waitForDescription
        case .kind(let k): k.waitsForDescription
        case .sound, .say, .timer, .count, .log, .effect: false
        }
    }

    /// Whether it goes once the fire's clip is written (`wait: clip`).
    public var waitsForClip: Bool {
        switch self {
        case .run(let c): c.waitForClip
        case .post(let p): p.waitForClip
        case .sound, .say, .timer, .count, .log, .effect, .kind: false
        }
    }

    /// The rule written back in the inline form's words (`chime`, `say:Hello`, `effect:zoom/bells`).
    public var inlineForm: String {
        switch self {
        case .sound(let s): return s.rawValue
        case .say(let line): return "say:\(line)"
        case .timer(let m): return "timer:\(Self.number(m))"
        case .count: return "count"
        case .log: return "log"
        case .effect(let e, let s): return s == e.ownSound ? "effect:\(e.rawValue)" : "effect:\(e.rawValue)/\(s.rawValue)"
        case .run(let c):
            // A word with spaces is shown quoted (the inline form itself splits at spaces).
            return "run:" + c.arguments.map { $0.contains(where: \.isWhitespace) || $0.isEmpty ? "\"\($0)\"" : $0 }.joined(separator: " ")
        case .post(let p): return "post:" + p.url
        case .kind(let k): return k.inlineForm
        }
    }

    public static func number(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e9 ? String(Int(x)) : String(x)
    }
}

/// The desktop sounds a `sound:` rule plays.
public enum Sound: String, Sendable, CaseIterable {
    case chime, glass, bell
}

/// The held-frame edits.
public enum Effect: String, Sendable, CaseIterable {
    case ripple, zoom, spotlight

    /// The sound each edit plays unless the rule picks another.
    public var ownSound: EffectSound {
        switch self {
        case .ripple: return .water
        case .zoom: return .horn
        case .spotlight: return .bells
        }
    }
}

/// The sounds an effect can play.
public enum EffectSound: String, Sendable, CaseIterable {
    case water, horn, bells, chime
}
