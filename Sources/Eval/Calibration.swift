import Foundation
import LookCore

/// How well a rule's confidences (P(yes)) mean what they say, against the truth: the Brier score
/// (the mean of (p − y)², y being 1 in view and 0 out of it) and the expected calibration error over
/// 10 equal bins of p (the mean, weighted by each bin's answers, of how far its mean p is from how
/// often the thing was in view). 0 is perfect for both; a rule answering 0.9 for what is in view
/// half the time has an error of 0.4.
public struct Calibration: Sendable, Equatable {
    /// One bin of p: its answers, their mean p and how often the thing was in view.
    public struct Bin: Sendable, Equatable {
        public var answers = 0
        public var meanP = 0.0
        public var inView = 0.0
    }

    public private(set) var bins = [Bin](repeating: Bin(), count: 10)
    public private(set) var answers = 0
    private var squaredError = 0.0

    public init() {}

    /// Adds an answer whose confidence was `p`, the thing being `inView` or not.
    public mutating func add(_ p: Double, inView: Bool) {
        let p = min(1, max(0, p)), y = inView ? 1.0 : 0.0
        let i = min(9, Int(p * 10))
        let n = Double(bins[i].answers)
        bins[i].meanP = (bins[i].meanP * n + p) / (n + 1)
        bins[i].inView = (bins[i].inView * n + y) / (n + 1)
        bins[i].answers += 1
        answers += 1
        squaredError += (p - y) * (p - y)
    }

    /// Another's answers added to these (the overall figures).
    public mutating func add(_ other: Calibration) {
        for (i, bin) in other.bins.enumerated() where bin.answers > 0 {
            let (n, m) = (Double(bins[i].answers), Double(bin.answers))
            bins[i].meanP = (bins[i].meanP * n + bin.meanP * m) / (n + m)
            bins[i].inView = (bins[i].inView * n + bin.inView * m) / (n + m)
            bins[i].answers += bin.answers
        }
        answers += other.answers
        squaredError += other.squaredError
    }

    public var brier: Double? { answers > 0 ? squaredError / Double(answers) : nil }

    /// The expected calibration error (10 bins).
    public var expectedError: Double? {
        guard answers > 0 else { return nil }
        return bins.reduce(0) { $0 + Double($1.answers) / Double(answers) * abs($1.meanP - $1.inView) }
    }

    public var json: JSON {
        .object([
            ("answers", .int(answers)), ("ece", .optional(expectedError, places: 4)), ("brier", .optional(brier, places: 4)),
            (
                "bins",
                .array(
                    bins.enumerated().map { i, bin in
                        .object([
                            ("p_from", .number(Double(i) / 10, places: 1)), ("answers", .int(bin.answers)),
                            ("mean_p", .number(bin.meanP, places: 4)), ("in_view", .number(bin.inView, places: 4)),
                        ])
                    })
            ),
        ])
    }
}
