extension String {
    /// The text with control characters (ESC, BEL, NUL, DEL, C1) written as `\u{1B}`, so that a
    /// message quoting what a user or a model wrote cannot drive a terminal or cut a journal line.
    /// Tabs stay; `keepingNewlines` keeps line breaks too.
    public func withVisibleControls(keepingNewlines: Bool = false) -> String {
        guard unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return self }
        var out = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            if scalar.properties.generalCategory != .control || scalar == "\t" || (keepingNewlines && scalar == "\n") {
                out.append(scalar)
            } else {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            }
        }
        return String(out)
    }
}
