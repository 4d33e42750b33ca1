import Foundation
import Records
import Rules

extension Timeline {
    /// The rows of a recording (with a truth's spans, when given).
    public static func rows(_ recording: Recording, truth: TruthFile? = nil) -> [Row] {
        recording.conditions.map { condition in
            Row(
                condition: condition,
                answers: recording.frames.compactMap { f in f.answers[condition].map { (f.t, $0, f.confidence[condition]) } },
                fires: recording.fires.filter { $0.condition == condition }.map(\.t),
                held: recording.frames.filter { $0.heldBack.contains(condition) }.map(\.t), spans: truth?.spans(of: condition) ?? [])
        }
    }
}
