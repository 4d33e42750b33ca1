import LookCore
import Rules

/// Where events go: the stream the loop and the composition root emit into.
public protocol EventSink: AnyObject, Sendable {
    func emit(_ event: WatchEvent)
}

/// A part of a watch with a lifetime: the outputs, the records, the reactor. `WatchRun` starts its
/// parts in order before the first frame (the first that cannot start ends the run, under its name)
/// and stops them in reverse after the last, each within its own `stopLimit` on the run's clock
/// (`Lifecycle`, in Watch).
public protocol RunPart: AnyObject {
    /// Its name in an `error` line when it cannot start (`mqtt`, `http`), and in the journal's line
    /// when its stop took longer than its limit.
    var name: String { get }
    /// Starts it (a connection, a listening socket); `events` takes what it reports itself.
    func start(events: any EventSink) throws(OutputFailure)
    /// Stops it (sends what is left, within bounds, and closes).
    func stop()
    /// The most seconds its stop may take: its own waits are bounded within it.
    var stopLimit: Double { get }
}

extension RunPart {
    public func start(events: any EventSink) throws(OutputFailure) {}
    public func stop() {}
    public var stopLimit: Double { 10 }
}

/// A part that subscribes to a watch's events: the recorder, the service, MQTT, the page, the
/// terminal. `receive` is called on the emitter's thread (mostly the loop's; a reaction's report or
/// a broker's state comes from theirs), so an output that leaves the process hands the work to a
/// thread of its own and returns at once.
public protocol WatchOutput: RunPart, Sendable {
    /// What the journal's `watching …` line says of it (`status in …`, `the page at …`).
    var note: String? { get }
    /// How it meets the cameras of a house (docs/architecture.md, "An output for several cameras").
    var share: HouseShare { get }
    func receive(_ event: WatchEvent)
}

extension WatchOutput {
    public var note: String? { nil }
    public var share: HouseShare { .perCamera }
}

/// How an output meets the cameras of a house: every camera has its outputs (made for it by
/// `OutputSettings.outputs`), and each kind says what the camera's name does to them.
public enum HouseShare: Sendable, Hashable {
    /// Each camera its own, in its own place, named by nothing: its clips (in its folder), its
    /// terminal line, its event log's lines (each naming it), its record.
    case perCamera
    /// Each camera its own, under a name its camera's name makes (`CameraName.fileSuffix`): the
    /// status file (`status-door.json`), the MQTT device and topics (`lookd/porch-door`).
    case renamedPerCamera
    /// One for the house, each camera's part named in it: the history (one file, each row naming its
    /// camera), the page (one address, each camera's page below `CameraName.pagePath`).
    case sharedByTheHouse
}

/// An output that takes each event before the event log writes its line, so that what the log has
/// it has too, even after a SIGKILL (the history). It must keep its wait on the emitter short.
public protocol AheadOfTheLog: WatchOutput {}

/// Why an output could not start, in words.
public struct OutputFailure: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// One stream of events, fanned out to its subscribers in their order.
public final class EventStream: EventSink, @unchecked Sendable {
    public let subscribers: [any WatchOutput]

    public init(_ subscribers: [any WatchOutput]) { self.subscribers = subscribers }

    public func emit(_ event: WatchEvent) {
        for subscriber in subscribers { subscriber.receive(event) }
    }
}

/// An output that takes commands from outside (MQTT's command topics): the composition root hands
/// it the run's commands before it starts.
public protocol CommandingOutput: WatchOutput {
    func accept(commands: RuleCommands)
}
