import LookCore

/// A region the change gate ignores (a camera's clock, a tree in the wind), in fractions of the
/// picture (0–1): left, top, right, bottom. The model still sees it.
///
///     gate:
///       mask:
///         - [0.8, 0, 1, 0.12]     # the top right corner
public struct GateMask: Sendable, Equatable, Codable {
    public var left, top, right, bottom: Double

    public init(left: Double, top: Double, right: Double, bottom: Double) {
        (self.left, self.top, self.right, self.bottom) = (left, top, right, bottom)
    }

    /// The mask as `--gate-mask` writes it: `l,t,r,b`.
    public var words: String { [left, top, right, bottom].map { String(format: "%g", $0) }.joined(separator: ",") }

    public func contains(x: Double, y: Double) -> Bool { x >= left && x < right && y >= top && y < bottom }

    /// Four numbers as a mask, or the problem in words.
    static func make(_ numbers: [Double]) -> Result<GateMask, Problem> {
        guard numbers.count == 4 else { return .failure("a gate mask is four numbers: left, top, right, bottom") }
        guard numbers.allSatisfy({ (0...1).contains($0) }) else {
            return .failure("a gate mask's numbers are fractions of the picture, from 0 to 1")
        }
        guard numbers[0] < numbers[2], numbers[1] < numbers[3] else {
            return .failure("a gate mask's left is less than its right, and its top less than its bottom")
        }
        return .success(GateMask(left: numbers[0], top: numbers[1], right: numbers[2], bottom: numbers[3]))
    }

    /// `--gate-mask "0.8,0,1,0.12;0,0.9,0.3,1"`.
    public static func parse(inline text: String) throws(RulesError) -> [GateMask] {
        var masks: [GateMask] = []
        for part in text.split(separator: ";") {
            let numbers = part.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard numbers.allSatisfy({ $0 != nil }) else {
                throw RulesError(source: "\(SettingName.gateMask)", problem: "\"\(part)\" is not four numbers: left,top,right,bottom")
            }
            switch make(numbers.map { $0! }) {
            case .success(let mask): masks.append(mask)
            case .failure(let problem): throw RulesError(source: "\(SettingName.gateMask)", problem: "\"\(part)\": \(problem.text)")
            }
        }
        return masks
    }
}
