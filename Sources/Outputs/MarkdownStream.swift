/// Renders a model's Markdown for a terminal while it streams: `**bold**` in bold, a `# heading` as a
/// bold line, a `- item` as `•`, line breaks inside a paragraph as spaces, a blank line as a gap;
/// `>` quote marks and `---` rules dropped. Text goes in in any chunks; what can be shown goes out
/// at once, and only what is still ambiguous (a line's first marks, a lone `*`, trailing spaces) waits.
public struct MarkdownStream {
    /// The text as shown, without styling (the record's `answer_shown`).
    public private(set) var shown = ""
    private let bold: (on: String, off: String)

    private enum Kind { case paragraph, heading, item }
    private enum Break { case none, soft, line, gap }

    private var atLineStart = true
    private var head = "" // a line's first characters, while they may be a marker
    private var kind = Kind.paragraph
    private var pendingBreak = Break.none
    private var pendingSpaces = ""
    private var pendingStar = false
    private var inBold = false
    private var anyOutput = false

    /// `styled`: ANSI bold for a terminal; otherwise the shown text carries no escapes.
    public init(styled: Bool) {
        bold = styled ? ("\u{1B}[1m", "\u{1B}[22m") : ("", "")
    }

    /// Feeds the next piece of the answer; returns what to write now.
    public mutating func feed(_ text: String) -> String {
        var out = ""
        for c in text { step(c, into: &out) }
        return out
    }

    /// Ends the answer; returns what was still held back.
    public mutating func finish() -> String {
        var out = ""
        if atLineStart, !head.isEmpty { resolveHead(lineEnded: true, into: &out) }
        if pendingStar { literalStar(into: &out); pendingStar = false }
        if inBold { out += bold.off; inBold = false }
        return out
    }

    private mutating func step(_ character: Character, into out: inout String) {
        let c: Character = character == "\r\n" ? "\n" : character
        // Control characters (an escape sequence from the model, say) never reach the terminal.
        if c.unicodeScalars.contains(where: { $0 != "\n" && $0 != "\t" && Self.isControl($0) }) { return }
        if atLineStart {
            if c == "\n" { resolveHead(lineEnded: true, into: &out); return }
            head.append(c)
            if headIsDecided() { resolveHead(lineEnded: false, into: &out) }
            return
        }
        if c == "\n" { endLine(into: &out); return }
        inline(c, into: &out)
    }

    /// Whether the buffered line start can no longer change meaning.
    private func headIsDecided() -> Bool {
        let h = head.drop { $0 == " " }
        guard let first = h.first else { return false }
        switch first {
        case "#": return h.contains { $0 != "#" }
        case ">": return h.dropFirst().contains { $0 != " " }
        case "-", "*", "_":
            let marks = h.filter { $0 != " " }
            guard marks.allSatisfy({ $0 == first }) else { return true }
            // Only marks so far: "- " is an item; "--", "**", "---" wait (a rule, bold, or text).
            return marks.count == 1 && h.count > 1
        default: return true
        }
    }

    private mutating func resolveHead(lineEnded: Bool, into out: inout String) {
        let h = String(head.drop { $0 == " " })
        head = ""
        atLineStart = false
        let marks = h.filter { $0 != " " }
        if h.isEmpty { // a blank line: a gap
            if anyOutput { pendingBreak = .gap }
            atLineStart = true
            return
        }
        if lineEnded, marks.count >= 3, let m = marks.first, "-*_".contains(m), marks.allSatisfy({ $0 == m }) {
            atLineStart = true // a --- rule: dropped
            return
        }
        var rest = Substring(h)
        if h.hasPrefix(">") { // a quote: its mark dropped
            rest = rest.dropFirst().drop { $0 == " " }
            kind = .paragraph
            begin(into: &out)
        } else if h.hasPrefix("#"), let space = h.firstIndex(where: { $0 != "#" }), h[space] == " " {
            kind = .heading
            rest = h[space...].drop { $0 == " " }
            begin(into: &out)
            out += bold.on
        } else if h.hasPrefix("- ") || h.hasPrefix("* ") || h.hasPrefix("+ ") {
            kind = .item
            rest = h.dropFirst(2)
            begin(into: &out)
            emit("• ", into: &out)
        } else {
            kind = .paragraph
            begin(into: &out)
        }
        for c in rest { inline(c, into: &out) }
        if lineEnded { endLine(into: &out) }
    }

    /// Writes the break owed before a new line's content.
    private mutating func begin(into out: inout String) {
        let needed: Break = (kind == .paragraph && pendingBreak == .soft) ? .soft : pendingBreak
        switch needed {
        case .none: break
        case .soft: emit(kind == .paragraph ? " " : "\n", into: &out)
        case .line: emit("\n", into: &out)
        case .gap: emit("\n\n", into: &out)
        }
        pendingBreak = .none
    }

    private mutating func inline(_ c: Character, into out: inout String) {
        if pendingStar {
            pendingStar = false
            if c == "*" { toggleBold(into: &out); return }
            literalStar(into: &out)
        }
        if c == "*" { pendingStar = true; return }
        if c == " " || c == "\t" { pendingSpaces.append(" "); return }
        if !pendingSpaces.isEmpty { emit(pendingSpaces, into: &out); pendingSpaces = "" }
        emit(String(c), into: &out)
    }

    private mutating func toggleBold(into out: inout String) {
        if kind == .heading { return } // a heading is bold already
        if !pendingSpaces.isEmpty && !inBold { emit(pendingSpaces, into: &out); pendingSpaces = "" }
        inBold.toggle()
        out += inBold ? bold.on : bold.off
    }

    private mutating func literalStar(into out: inout String) {
        if !pendingSpaces.isEmpty { emit(pendingSpaces, into: &out); pendingSpaces = "" }
        emit("*", into: &out)
    }

    private mutating func endLine(into out: inout String) {
        if pendingStar { literalStar(into: &out); pendingStar = false }
        pendingSpaces = ""
        if kind == .heading { out += bold.off }
        pendingBreak = kind == .paragraph ? .soft : .line
        atLineStart = true
        kind = .paragraph
    }

    private static func isControl(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (0x7F...0x9F).contains(u.value)
    }

    private mutating func emit(_ s: String, into out: inout String) {
        out += s
        shown += s
        anyOutput = true
    }
}
