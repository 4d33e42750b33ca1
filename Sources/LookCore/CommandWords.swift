/// Words of a command line, before they are parsed (`Arguments` in the executable parses them).
public enum CommandWords {
    /// `words` split in two: the options named in `valued` (each with its value, `--x v` or
    /// `--x=v`) and the rest (`lookd eval`'s own options, and those it passes on to the watch).
    public static func split(_ words: [String], taking valued: Set<String>) -> (taken: [String], rest: [String]) {
        var taken: [String] = [], rest: [String] = []
        var i = 0
        while i < words.count {
            let name = words[i].hasPrefix("--") ? String(words[i].dropFirst(2).prefix { $0 != "=" }) : ""
            if valued.contains(name) {
                taken.append(words[i])
                if !words[i].contains("="), i + 1 < words.count {
                    taken.append(words[i + 1])
                    i += 1
                }
            } else {
                rest.append(words[i])
            }
            i += 1
        }
        return (taken, rest)
    }
}
