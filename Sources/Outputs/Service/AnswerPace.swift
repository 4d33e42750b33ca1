import Foundation
import LookCore
import Records

/// How a watch's answers come, for its status: when the last came, how old its frame was by then
/// (from its capture), and how many came in the last minute.
struct AnswerPace {
    /// The answers of the last minute, on the watch's clock.
    private var recent: [Double] = []
    private var last: (time: Date, age: Double)?

    /// A frame's answer came at `now` (`time` on the wall), its frame `age` seconds old.
    mutating func answered(at now: Double, time: Date, age: Double) {
        recent.append(now)
        recent.removeFirst(recent.prefix { $0 <= now - 60 }.count)
        last = (time, age)
    }

    /// `last_answer`, `answer_age_ms` and `answers_a_minute`, as of `now`.
    func fields(at now: Double) -> [(String, JSON)] {
        [
            ("last_answer", .optional(last.map { Timestamp.text($0.time) })),
            ("answer_age_ms", .optional(last.map { Int(saturating: ($0.age * 1000).rounded()) })),
            ("answers_a_minute", .int(recent.filter { $0 > now - 60 }.count)),
        ]
    }
}
