/// Where a thing is in a picture: left, top, right and bottom in per mille (0–1000) of the picture's
/// width and height, as MiniCPM-V answers; always in order (left ≤ right, top ≤ bottom).
public struct Box: Sendable, Equatable, Codable {
    public var left: Int
    public var top: Int
    public var right: Int
    public var bottom: Int

    /// Puts the sides in order and within 0…1000.
    public init(left: Int, top: Int, right: Int, bottom: Int) {
        func clamp(_ v: Int) -> Int { min(1000, max(0, v)) }
        self.left = clamp(min(left, right))
        self.right = clamp(max(left, right))
        self.top = clamp(min(top, bottom))
        self.bottom = clamp(max(top, bottom))
    }

    /// The middle, in per mille.
    public var center: (x: Double, y: Double) { (Double(left + right) / 2, Double(top + bottom) / 2) }
}

/// One of the nine cells of a 3 × 3 grid, numbered 1–9 from the top left, row by row.
public struct Cell: Sendable, Equatable, Codable {
    public let number: Int

    public init?(_ number: Int) {
        guard (1...9).contains(number) else { return nil }
        self.number = number
    }

    /// Column and row, 0–2.
    public var column: Int { (number - 1) % 3 }
    public var row: Int { (number - 1) / 3 }

    /// The cell as a box (a third of the picture each way).
    public var box: Box {
        Box(left: column * 1000 / 3, top: row * 1000 / 3, right: (column + 1) * 1000 / 3, bottom: (row + 1) * 1000 / 3)
    }
}
