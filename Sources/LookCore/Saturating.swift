/// Whole numbers from numbers read from input (files, records, a model's answer), which may be
/// huge, infinite or not a number: `Int(x)` traps on those, so input paths convert through here.
extension Int {
    /// `x` rounded toward zero, held to Int's range; NaN is 0.
    public init(saturating x: Double) {
        if x.isNaN {
            self = 0
        } else if x >= 9.2e18 {
            self = .max
        } else if x <= -9.2e18 {
            self = .min
        } else {
            self = Int(x)
        }
    }

    /// One more, or Int.max when already there (a kept count never wraps or traps).
    public var incrementedSaturating: Int { self == .max ? .max : self + 1 }
}

extension Double {
    /// The number as a person writes it: `3` for a whole number within Int's range, else as Swift
    /// prints it (`2.5`, `1e+300`, `inf`, `nan`).
    public var plainText: String {
        isFinite && self == rounded() && Swift.abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
