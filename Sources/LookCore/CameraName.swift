/// A camera of the house, by name. Every watch is a house of named cameras: a watch of cameras
/// (`--camera NAME=SOURCE`, `settings: cameras:`) names each one wherever it writes (its event lines,
/// its records' folder, its status file, its history rows, its page below `/camera/NAME`, its MQTT
/// device); a watch of one source (`--source`) is a house of one camera, `CameraName.only`, which
/// nothing it writes names, so its records, status, history, page and topics are as they always were.
///
/// What a camera's name changes in what is written is said here, once: the writers ask it
/// (`written`, `lineStart`, `fileSuffix`, `pagePath`) instead of each deciding for itself.
public struct CameraName: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// Its name among the cameras (`main` for the only camera of a watch of one source).
    public let name: String
    /// Whether what the camera writes names it: false for the only camera of a watch of one source.
    public let isNamed: Bool

    /// A camera the user named.
    public init(_ name: String) { (self.name, isNamed) = (name, true) }

    /// A camera the user named, written as its name (`"door"`).
    public init(stringLiteral name: String) { self.init(name) }

    private init(unnamed name: String) { (self.name, isNamed) = (name, false) }

    /// The one camera of a watch of one source; "main" is its name wherever the house lists its cameras.
    public static let only = CameraName(unnamed: "main")

    public var description: String { name }

    /// Its name where a record, a row or a label names it; nil for the only camera (its records
    /// have no camera).
    public var written: String? { isNamed ? name : nil }

    /// What begins a line said of it (`door: `); nothing for the only camera.
    public var lineStart: String { isNamed ? name + ": " : "" }

    /// What a file of its own ends with before its extension (`status-door.json`, `lookd-porch-door`): `-door`.
    public var fileSuffix: String { isNamed ? "-" + name : "" }

    /// Where its page is below the house's address (`/camera/door`); "" for the only camera.
    public var pagePath: String { isNamed ? "/camera/" + name : "" }

    /// A record's `camera` key, before its other keys (none for the only camera).
    public var recordFields: [(String, JSON)] { written.map { [("camera", JSON.string($0))] } ?? [] }
}
