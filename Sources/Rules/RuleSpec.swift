import Foundation

/// What `--rules` (or `lookd check`) names: a rules file when one exists at the path (or the text
/// ends in .yaml/.yml, or has no `=`), else rules in the inline form.
public enum RuleSpec {
    /// The rules and where they came from (the file's path, or `--rules`).
    public static func load(_ spec: String) throws(RulesError) -> (rules: RuleSet, source: String) {
        let trimmed = spec.trimmingCharacters(in: .whitespaces)
        let looksLikeFile =
            !trimmed.isEmpty
            && (FileManager.default.fileExists(atPath: spec)
                || spec.hasSuffix(".yaml") || spec.hasSuffix(".yml") || !spec.contains("="))
        if looksLikeFile { return (try RulesFile.load(path: spec), spec) }
        return (try InlineRules.parse(spec), InlineRules.source)
    }
}
