import Foundation
import LookCore
import ReactionDomain
import Records

/// One fire as the history keeps it: its run and number, the rule, when and on which frame, how
/// sure, where, and what was kept of it (snapshot, description, clip).
public struct HistoryFire: Sendable, Equatable {
    /// The run it came from (the run's start, seconds since 1970) and its number in that run.
    public var run: Int64
    public var fire: Int
    public var rule: Int
    public var condition: String
    public var reaction: String
    public var time: Date
    public var frame: Int
    public var edge: String
    public var confidence: Double?
    public var box: Box?
    public var snapshot: String?
    public var description: String?
    public var clip: String?
    /// The camera it came from (`CameraName.only`: a watch of one source, whose rows name none).
    public var camera: CameraName

    public init(run: Int64, fire context: FireContext, camera: CameraName = .only) {
        (self.run, self.camera) = (run, camera)
        (fire, rule, condition, reaction) = (context.fire, context.rule, context.condition, context.reaction)
        (time, frame, edge, confidence) = (context.time, context.frame, context.edge, context.confidence)
        (box, snapshot, description) = (context.box, context.snapshot, context.description)
    }

    /// `lookd history --json`'s entry.
    public var json: JSON {
        .object(
            [
                ("run", .int(Int(run))), ("fire", .int(fire)), ("rule", .int(rule)), ("condition", .string(condition)),
                ("reaction", .string(reaction)), ("time", .string(Timestamp.text(time))), ("frame", .int(frame)), ("edge", .string(edge)),
                ("confidence", .optional(confidence, places: 4)), ("box", box.map { .ints([$0.left, $0.top, $0.right, $0.bottom]) } ?? .null),
                ("snapshot", .optional(snapshot)), ("description", .optional(description)), ("clip", .optional(clip)),
            ] + camera.recordFields)
    }
}
