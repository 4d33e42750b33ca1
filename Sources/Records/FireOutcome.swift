import LookCore
import ReactionDomain

/// One fire, typed: the rule, its reaction and what became of it, and where the thing was. It is
/// made once, when the reaction has run, and emitted once (`fired`, the `fire` line); what comes of
/// it later is its own value and event: an effect's hold (`HoldOutcome`, `held`), its description
/// (`DescribeOutcome`, `described`). The run record's fire entry is composed of the three.
public struct FireOutcome: Sendable {
    /// The fire's number in the run, from 1; the rule, from 0.
    public let number: Int
    public let rule: Int
    public let condition: String
    public let reaction: Reaction
    public let frame: Int
    /// Seconds from the frame's capture to the reaction, and from the scene's change when known.
    public let latency: Double
    public let sinceChange: Double?
    public let result: ReactionResult
    public let place: Place?
    /// An effect's hold setting (`--hold`).
    public let holdSetting: Double
    /// What let it through: the turn (appear or disappear), the confirmation (`2 of 3`) and the
    /// answer's confidence, when the rule has such settings or the engine gave one.
    public let edge: String
    public let confirmed: String?
    public let confidence: Double?
    /// The fire's snapshot (`--snapshots`): the frame at the source's size, as JPEG.
    public let snapshot: String?
    /// The fire as it leaves lookd (commands, posts, MQTT).
    public let context: FireContext?

    public init(
        number: Int, rule: Int, condition: String, reaction: Reaction, frame: Int, latency: Double, sinceChange: Double?,
        result: ReactionResult, place: Place?, holdSetting: Double, edge: String = "appear", confirmed: String? = nil,
        confidence: Double? = nil, snapshot: String? = nil, context: FireContext? = nil
    ) {
        (self.edge, self.confirmed, self.confidence, self.snapshot, self.context) = (edge, confirmed, confidence, snapshot, context)
        self.number = number
        self.rule = rule
        self.condition = condition
        self.reaction = reaction
        self.frame = frame
        self.latency = latency
        self.sinceChange = sinceChange
        self.result = result
        self.place = place
        self.holdSetting = holdSetting
    }

    /// The `fire` event line's fields.
    public var eventFields: [(String, JSON)] {
        var fields: [(String, JSON)] = [
            ("fire", .int(number)),
            ("rule", .int(rule + 1)),
            ("condition", .string(condition)),
            ("reaction", .string(reaction.name)),
            ("kind", .string(reaction.kind)),
            ("frame", .int(frame)),
            ("latency_ms", .number(latency * 1000, places: 1)),
            ("performed", .bool(result.performed)), ("turned_off", .bool(result.turnedOff)),
            ("shown", .string(result.shown)),
            ("note", .optional(result.note)),
            ("edge", .string(edge)),
            ("confirmed", .optional(confirmed)),
            ("confidence", .optional(confidence, places: 4)),
            ("snapshot", .optional(snapshot)),
        ]
        if let sinceChange { fields.append(("since_change_ms", .number(sinceChange * 1000, places: 1))) }
        if let cell = place?.cell { fields.append(("cell", .int(cell.number))) }
        fields += reaction.recordFields
        if reaction.base.wantsPlace {
            fields += [
                ("box", Place.json(place?.box)), ("box_unit", Self.unitBox(place?.editBox)),
                ("place_text", .optional(place?.text.map { String($0.prefix(200)) })),
                ("place_ms", .optional(place.map { $0.seconds * 1000 }, places: 1)),
                ("place_tokens", .optional(place?.text == nil ? nil : place?.tokens)),
                ("held_frame", .int(frame)), ("hold_s", .number(holdSetting)),
            ]
        }
        return fields
    }

    /// The `hold` event line's fields (an effect's, once its hold has ended).
    public func holdEventFields(_ hold: HoldOutcome) -> [(String, JSON)]? {
        guard let effect = reaction.as(EffectReaction.self)?.effect else { return nil }
        return [
            ("fire", .int(number)), ("rule", .int(rule + 1)), ("condition", .string(condition)),
            ("effect", .string(effect.rawValue)), ("frame", .int(frame)),
        ] + hold.fields
    }

    /// The run record's entry: the fire line, the hold's fields for an effect, and its description.
    public func recordEntry(hold: HoldOutcome?, describe: DescribeOutcome?) -> JSON {
        let described: [(String, JSON)] =
            describe.map { [("description", .optional($0.text)), ("describe_ms", .number($0.seconds * 1000, places: 1))] } ?? []
        return .object(eventFields + (hold?.fields ?? []) + described)
    }

    /// The box on the picture: x, y, width and height in units of the picture (0–1); null for none.
    public static func unitBox(_ box: Box?) -> JSON {
        guard let b = box else { return .null }
        return .array([b.left, b.top, b.right - b.left, b.bottom - b.top].map { .number(Double($0) / 1000, places: 3) })
    }
}

/// An effect's hold: how long the frame stood, where a video paused and went on, and the edit's
/// pictures (or why they failed).
public struct HoldOutcome: Sendable {
    public var held: Double
    public var pausedAt: Double?
    public var resumedAt: Double?
    public var png: String?
    public var apng: String?
    public var pictures: Int?
    /// Seconds drawing and writing the pictures took; how long the hold waited for them past its time.
    public var render: Double?
    public var renderWait: Double
    public var renderError: String?
    /// Whether a stop cut the hold short (the run stops within seconds, whatever holds are queued).
    public var cut = false

    public init(
        held: Double, pausedAt: Double?, resumedAt: Double?, png: String?, apng: String?, pictures: Int?, render: Double?,
        renderWait: Double, renderError: String?
    ) {
        self.held = held
        self.pausedAt = pausedAt
        self.resumedAt = resumedAt
        self.png = png
        self.apng = apng
        self.pictures = pictures
        self.render = render
        self.renderWait = renderWait
        self.renderError = renderError
    }

    var fields: [(String, JSON)] {
        [
            ("hold_ms", .number(held * 1000, places: 1)),
            ("paused_t_s", .optional(pausedAt)), ("resumed_t_s", .optional(resumedAt)),
            ("png", .optional(png)), ("apng", .optional(apng)), ("pictures", .optional(pictures)),
            ("render_ms", .optional(render.map { $0 * 1000 }, places: 1)),
            ("render_wait_ms", .number(renderWait * 1000, places: 1)),
            ("render_error", .optional(renderError)),
            ("hold_cut", .bool(cut)),
        ]
    }
}
