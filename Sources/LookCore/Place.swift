/// Where a fired rule's thing is on the frame, as the model said: a box, a cell, or nothing read.
public struct Place: Sendable, Equatable {
    /// The rule, counted from 0.
    public var rule: Int
    public var box: Box?
    public var cell: Cell?
    /// The answer as written (nil for `--cells batch`, whose answer is the frame's own).
    public var text: String?
    public var seconds = 0.0
    public var firstToken: Double?
    public var tokens = 0

    public init(rule: Int, box: Box? = nil, cell: Cell? = nil, text: String? = nil, seconds: Double = 0, firstToken: Double? = nil, tokens: Int = 0) {
        self.rule = rule
        self.box = box
        self.cell = cell
        self.text = text
        self.seconds = seconds
        self.firstToken = firstToken
        self.tokens = tokens
    }

    /// Where the edit plays: the box, else the cell's third of the picture, else nil (the whole frame).
    public var editBox: Box? { box ?? cell?.box }
}
