import Foundation
import LookCore

/// What each photo of a folder shows, rule by rule (`--truth "sign:no,no,yes;object:yes,no,no"`),
/// keyed by the photo's name without its extension.
public enum PhotoTruth {
    /// A `--truth` value that cannot be read, in words.
    public struct Failure: Error, Sendable {
        public let problem: String
    }

    /// `sign:no,no,yes;object:yes,no,no` → ["sign": [.no, .no, .yes], …].
    public static func parse(_ text: String) throws(Failure) -> [String: [Answer]] {
        var table: [String: [Answer]] = [:]
        for entry in text.split(separator: ";") {
            let parts = entry.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { throw Failure(problem: "\(SettingName.truth) is photo:yes,no,…;photo:…, not \"\(entry)\"") }
            var answers: [Answer] = []
            for word in parts[1].split(separator: ",") {
                switch word.trimmingCharacters(in: .whitespaces).lowercased() {
                case "yes", "y": answers.append(.yes)
                case "no", "n": answers.append(.no)
                default: throw Failure(problem: "\(SettingName.truth) answers are yes or no, not \"\(word)\"")
                }
            }
            table[parts[0].trimmingCharacters(in: .whitespaces)] = answers
        }
        return table
    }
}
