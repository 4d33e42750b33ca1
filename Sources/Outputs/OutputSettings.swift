import Foundation
import History
import LookCore
import Media
import Platform
import Records
import Rules
import Status

/// Where a watch's events leave the process: the service (status file and sd_notify), MQTT and the
/// page. The command line fills it; `outputs` makes the list the watch starts in order.
public struct OutputSettings: Sendable {
    /// `--status FILE`: where the status file goes (default: the runtime directory; StatusFile).
    public var statusPath: String?
    /// The history's database (`--history`); nil: off.
    public var historyPath: String?
    /// This instance's name: MQTT topics and Home Assistant's device.
    public var name: String
    /// The camera (`CameraName.only` in a watch of one source): in a watch of cameras, its fires'
    /// rows in the history (which the cameras share), its status file and its page name it.
    public var camera = CameraName.only
    /// The MQTT broker (`--mqtt`), Home Assistant's discovery prefix (nil: no discovery) and how many
    /// fire events wait while the broker is away.
    public var mqtt: MQTTBroker?
    public var mqttDiscovery: String? = "homeassistant"
    public var mqttQueue = 256
    /// The page and `/metrics` (`--http`), and the token every request must carry (`--http-token`).
    public var http: WebOutput.Listen?
    public var httpToken: String?
    /// The one page of a watch of several cameras, made once by the composition root: the
    /// camera's page is a part of it (nil: a page of its own at `http`).
    public var page: WebHouse?
    /// lookd's version, for Home Assistant's device.
    public var version = "lookd"
    /// How long the history keeps fires (`--keep-days`, seconds): older rows go with their snapshots and clips.
    public var keepAge = 30 * 86400.0
    /// Clips of fires (`--clips`): what the source keeps for them, where they go, and their lengths; nil: off.
    public var clips: ClipPlan?
    /// The feed of `clips`, made once by the composition root (`ClipPlan.makeFeed`) and given to the
    /// source too; nil: no clips.
    public var clipFeed: ClipFeed?
    /// The truth a labelled clip's watch is scored against (`--truth FILE`), drawn on the page's timelines.
    public var truth: TruthFile?

    public init(name: String) { self.name = name }

    /// Why `token` cannot guard the page (empty, blank, or with spaces or control characters, which
    /// no header carries whole); nil when it can.
    public static func tokenProblem(_ token: String) -> String? {
        if token.trimmingCharacters(in: .whitespaces).isEmpty { return "\(SettingName.httpToken) is empty: a page with a token needs one" }
        if token.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
            return "\(SettingName.httpToken) has spaces or control characters: use letters, digits and punctuation"
        }
        return nil
    }

    /// Whether `name` can name an instance: letters, digits, `-` and `_` (it names MQTT topics).
    /// The first line of a token file (`--http-token-file`), or nil when it cannot be read or is over 4 kB.
    public static func token(fromFile path: String) -> String? {
        guard case .bytes(let data) = BoundedRead.read(path, limit: 4096) else { return nil }
        let line = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.trimmingCharacters(in: .whitespaces)
    }

    /// Why `--http-token` on the command line is warned about.
    public static let tokenOnCommandLine =
        "\(SettingName.httpToken) on the command line can be read by every user of this machine (ps); "
        + "use \(SettingName.httpTokenFile) FILE or LOOKD_HTTP_TOKEN in the environment instead"

    /// At most 64 characters: it goes into MQTT client ids and topics, which brokers bound.
    public static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name == HomeAssistantDiscovery.node(name)
    }

    /// The outputs, in the order they start: the service, MQTT, the page. The service shows MQTT's
    /// state and hands each status to the page. `sockets`: the page's connections' clock when it is not `clock`
    /// (a test's manual clock cannot time sockets).
    public func outputs(
        source: String, eventsPath: String?, snapshotsDir: String?, notifier: any ServiceNotifier, clock: any Clock,
        sockets: (any Clock)? = nil
    ) -> [any WatchOutput] {
        let mqtt = self.mqtt.map {
            MQTTOutput(
                broker: $0, name: name, discoveryPrefix: mqttDiscovery, capacity: mqttQueue, version: version,
                page: http.map { $0.url + (page == nil ? "" : camera.pagePath) },
                snapshots: snapshotsDir != nil, clock: clock)
        }
        let states: [any OutputState] = mqtt.map { [$0] } ?? []
        let web = http.map {
            WebOutput(
                listen: $0, token: httpToken, snapshotsDir: snapshotsDir, history: historyPath, states: states, truth: truth, clips: clips,
                clipFeed: clipFeed, clock: clock, sockets: sockets, house: page, camera: camera)
        }
        let service = ServiceOutput(
            statusPath: statusPath, source: source, eventsPath: eventsPath, historyPath: historyPath, notifier: notifier, clock: clock,
            states: states, listeners: web.map { [$0] } ?? [], camera: camera)
        let history = historyPath.map {
            HistoryWriter(path: $0, clock: clock, keepAge: keepAge, folders: [snapshotsDir, clips?.folder].compactMap { $0 }, camera: camera)
        }
        var clipping: ClipOutput?
        if let clips, let clipFeed { clipping = ClipOutput(clips, feed: clipFeed, clock: clock) }
        return [service] + (history.map { [$0] } ?? []) + (clipping.map { [$0] } ?? []) + (mqtt.map { [$0] } ?? []) + (web.map { [$0] } ?? [])
    }

    /// Makes the history once, before the writers of several cameras open it together; what
    /// happened, in words, when not plain.
    public func prepareHistory(clock: any Clock) -> String? { historyPath.flatMap { HistoryWriter.prepare($0, clock: clock) } }
}
