/// A `say:` line with the fire's description in it: `say: "{description}"`, or a line with
/// `{description}` inside; without a description (none asked, none came) the rule's words stand in.
public enum SpokenLine {
    public static let placeholder = "{description}"

    public static func fill(_ line: String, description: String?, condition: String) -> String {
        line.replacingOccurrences(of: placeholder, with: description ?? condition)
    }
}
