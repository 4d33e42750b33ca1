import Foundation
import LookCore
import Media
import Platform
import Records
import Rules

/// `--http ADDR:PORT`: the page (`/`), the history's review page (`/history`, `/api/history`),
/// `/api/status`, `/api/fires`, `/api/events` (server-sent events), `/frame.jpg`, `/snapshots/<fire>.jpg` and `/metrics`, read-only, on threads of the
/// server's own. With a token (required off loopback), every request must carry it, as
/// `Authorization: Bearer TOKEN` or `?token=TOKEN`.
public final class WebOutput: WatchOutput, StatusListener, @unchecked Sendable {
    public let share = HouseShare.sharedByTheHouse
    public struct Listen: Sendable, Equatable {
        public var host: String
        public var port: Int

        /// `127.0.0.1:8470`, `0.0.0.0:8470`, `[::1]:8470`.
        public static func parse(_ text: String) -> Listen? {
            let host: Substring, port: Substring
            if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
                host = text[text.index(after: text.startIndex)..<close]
                let rest = text[text.index(after: close)...]
                guard rest.hasPrefix(":") else { return nil }
                port = rest.dropFirst()
            } else {
                guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
                host = text[..<colon]
                port = text[text.index(after: colon)...]
            }
            guard let p = Int(port), (1...65535).contains(p), !host.isEmpty else { return nil }
            return Listen(host: String(host), port: p)
        }

        /// The page's address for links others follow: a wildcard address is named by the host's name.
        public var url: String {
            let name = ["0.0.0.0", "::", "*"].contains(host) ? ProcessInfo.processInfo.hostName : host
            return "http://" + (name.contains(":") ? "[\(name)]" : name) + ":\(port)"
        }

        /// Whether only this machine can reach it (127.0.0.0/8 or ::1).
        public var isLoopback: Bool { HostCheck.isLoopbackName(host) }
    }

    public let name = "http"
    let state: WebState
    /// `http://127.0.0.1:8470/`, for the journal.
    public let address: String
    let metrics: Metrics
    let timeline: LiveTimeline
    let listen: Listen
    private let token: String?
    private let snapshotsDir: String?
    /// The history's database (`/history`), when it is on.
    private let history: String?
    /// The clips' folder (`--clips`): `/clips/<name>.mp4` serves from it only.
    private let clipsDir: String?
    /// Serving a history file alone (`lookd history --http`): `/` is the review page.
    private let historyOnly: Bool
    /// The house's one page, in a watch of several cameras: this camera's page is its
    /// `/camera/NAME/`, and the house serves it (nil: a server of its own).
    private let house: WebHouse?
    /// The camera whose page this is, in a watch of several.
    let camera: CameraName
    private let lock = NSLock()
    private var server: WebServer?
    /// The clock of the history's days, and the one of the page's connections: their deadlines are
    /// the kernel's, as libmicrohttpd's own timeout is, so a run on a test's manual clock gives the
    /// page a real one (`sockets`).
    private let clock: any Clock
    private let sockets: any Clock
    /// The fires the page lists, as last shown, so that a clip that comes later joins its fire.
    private var listed: [(fire: Int, json: JSON)] = []

    /// Serves on `listen` once started; `states` are the other outputs whose drops `/metrics` counts.
    init(
        listen: Listen, token: String?, snapshotsDir: String?, history: String? = nil, states: [any OutputState] = [], truth: TruthFile? = nil,
        clips: ClipPlan? = nil, clipFeed: ClipFeed? = nil, historyOnly: Bool = false, clock: any Clock,
        sockets: (any Clock)? = nil, house: WebHouse? = nil, camera: CameraName = .only
    ) {
        (self.clock, self.sockets, self.house, self.camera) = (clock, sockets ?? clock, house, camera)
        state = WebState(slots: house?.streams ?? StreamSlots())
        (self.listen, self.history, clipsDir, self.historyOnly) = (listen, history, clips?.folder, historyOnly)
        timeline = LiveTimeline(truth: truth)
        self.token = token
        self.snapshotsDir = snapshotsDir
        metrics = Metrics(states: states, feed: clipFeed)
        address =
            "http://\(listen.host.contains(":") ? "[\(listen.host)]" : listen.host):\(listen.port)" + (house == nil ? "" : camera.pagePath) + "/"
    }

    public var note: String? { "the page at \(address)" }

    public func start(events: any EventSink) throws(OutputFailure) {
        if let house { return try house.join(self) }
        do {
            let host = listen.host == "localhost" ? "127.0.0.1" : listen.host
            let server = try WebServer(host: host, port: listen.port, clock: sockets) {
                [weak self] request in
                self?.answer(request) ?? .text(503, "stopping\n")
            }
            lock.withLock { self.server = server }
        } catch {
            throw OutputFailure(error.description)
        }
    }

    public func receive(_ event: WatchEvent) {
        timeline.receive(event)
        switch event {
        case .answered(let frame): metrics.answered(frame)
        case .frame(let end, let shown, _): self.frame(end, shown: shown)
        case .skipped: metrics.skipped()
        case .frameFailed: metrics.failed()
        case .reloaded(let accepted, _): metrics.reloaded(accepted)
        case .report(let report): metrics.reported(report)
        case .described(let described, let fire): if let json = Self.shown(fire, described) { list(fire.number, json) }
        case .clip(let clip):
            metrics.clip(clip)
            guard let path = clip.path, let known = lock.withLock({ listed.last { $0.fire == clip.fire } }),
                case .object(let fields) = known.json
            else { break }
            let url = "/clips/" + (path as NSString).lastPathComponent
            let added: [(String, JSON)] = [("clip_url", .string(url)), ("clip_s", .number(clip.duration, places: 1))]
            list(clip.fire, .object(fields.filter { $0.0 != "clip_url" } + added))
        case .live(let live):
            switch live.change {
            case .lost: metrics.source(up: false)
            case .found: metrics.source(up: true)
            case .stillLost: break
            }
        default: break
        }
    }

    /// Each status as the service writes it.
    func status(_ json: JSON) { state.status(json) }

    public func stop() {
        state.closeAll()
        house?.leave(self)
        let server = lock.withLock { () -> WebServer? in
            defer { self.server = nil }
            return self.server
        }
        server?.stop()
    }

    func answer(_ request: WebServer.Request) -> WebServer.Response {
        Self.refusal(request, token: token) ?? route(request)
    }

    /// Why `request` is not answered: without the token, or without one from another machine's name.
    static func refusal(_ request: WebServer.Request, token: String?) -> WebServer.Response? {
        if let token, !Self.matches(token, request) { return .text(401, "401: this page needs its token (?token= or Authorization: Bearer)\n") }
        // Without a token the page is this machine's only: a web page elsewhere that rebinds its name
        // to 127.0.0.1 (DNS rebinding) sends its own Host, and a script's request its Origin.
        if token == nil, !HostCheck.isLoopback(host: request.host) || !HostCheck.isLoopback(origin: request.origin) {
            return .text(403, "403: without a token this page answers only to this machine's own names (localhost, 127.0.0.1, [::1])\n")
        }
        return nil
    }

    /// The answer to a request let in, by its path below the page's base. A camera's page in a
    /// house shows that camera's history only.
    func route(_ request: WebServer.Request) -> WebServer.Response {
        if historyOnly, let answer = HistoryServer.answer(request, history: history, now: clock.date()) { return answer }
        var request = request
        if house != nil, let name = camera.written { request.query["camera"] = name }
        let base = house == nil ? "" : camera.pagePath
        switch request.path {
        case "/" where !historyOnly, "/index.html" where !historyOnly:
            return .text(200, WebPage.html(state: state.pageState, base: base), type: "text/html; charset=utf-8")
        case _ where historyOnly:
            return .text(404, "404: no watch runs here; lookd history \(SettingName.http) serves /history, /api/history, /snapshots/ and /clips/\n")
        case "/api/status": return .text(200, state.statusText, type: "application/json")
        case "/api/fires": return .text(200, state.firesText, type: "application/json")
        case "/history", "/", "/index.html":
            return .text(
                200, HistoryPage.html(initial: HistoryPage.json(path: history, query: request.query, now: clock.date()).body, base: base),
                type: "text/html; charset=utf-8")
        case "/api/history":
            let (status, body) = HistoryPage.json(path: history, query: request.query, now: clock.date())
            return .text(status, body, type: "application/json")
        case "/metrics": return .text(200, metrics.text(), type: "text/plain; version=0.0.4; charset=utf-8")
        case "/frame.jpg":
            guard let jpeg = state.frameJPEG() else { return .text(404, "no frame answered yet\n") }
            return .bytes(status: 200, type: "image/jpeg", body: jpeg)
        case "/timeline.svg":
            guard let svg = timeline.svg(rule: Int(request.query["rule"] ?? "") ?? 0) else {
                return .text(404, "no such rule (?rule=1 for the first)\n")
            }
            return .text(200, svg, type: "image/svg+xml")
        case "/api/events":
            guard let reader = state.subscribe() else { return .text(503, "too many event streams are open\n") }
            let state = state
            return .stream(next: { reader.next() }, closed: { state.unsubscribe(reader) })
        default:
            if request.path.hasPrefix("/snapshots/") { return snapshot(String(request.path.dropFirst("/snapshots/".count))) }
            if request.path.hasPrefix("/clips/") { return clip(String(request.path.dropFirst("/clips/".count))).ranged(request.range) }
            return .text(
                404,
                "404: lookd serves /, /history, /api/status, /api/fires, /api/history, /api/events, /frame.jpg, /timeline.svg, /snapshots/, /clips/ and /metrics\n"
            )
        }
    }

    /// A fire's snapshot, by its file name only (`fire-<epoch>-<n>.jpg`).
    private func snapshot(_ name: String) -> WebServer.Response {
        Self.file(name, stem: "fire-", ext: ".jpg", in: snapshotsDir, type: "image/jpeg", limit: 64 << 20, what: "snapshot")
    }

    /// A fire's clip, by its file name only (`clip-<epoch>-<n>.mp4`).
    private func clip(_ name: String) -> WebServer.Response {
        Self.file(name, stem: "clip-", ext: ".mp4", in: clipsDir, type: "video/mp4", limit: 512 << 20, what: "clip")
    }

    /// A file of lookd's own naming (`<stem><digits and dashes><ext>`) from `folder` only: nothing
    /// else in or out of the folder is served, never through a link.
    private static func file(
        _ name: String, stem: String, ext: String, in folder: String?, type: String, limit: Int, what: String
    ) -> WebServer.Response {
        let valid =
            name.hasPrefix(stem) && name.hasSuffix(ext)
            && name.dropFirst(stem.count).dropLast(ext.count).allSatisfy { $0.isASCII && ($0.isNumber || $0 == "-") }
        guard valid, let folder, let bytes = RegularFile.read((folder as NSString).appendingPathComponent(name), limit: limit) else {
            return .text(404, "no such \(what)\n")
        }
        return .bytes(status: 200, type: type, body: bytes)
    }

    /// The token, compared in constant time.
    static func matches(_ token: String, _ request: WebServer.Request) -> Bool {
        var given = request.query["token"] ?? ""
        if let header = request.authorization, header.hasPrefix("Bearer ") { given = String(header.dropFirst(7)) }
        let a = Array(token.utf8), b = Array(given.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Each complete frame: its fires' counts, the picture, the fires.
    func frame(_ end: FrameEnd, shown: RGBImage?) {
        metrics.ended(end)
        if let shown { state.frame(end.index, shown) }
        for fire in end.fires { if let json = Self.shown(fire, end.descriptions[fire.number]) { list(fire.number, json) } }
    }

    /// Lists a fire on the page (again, when it has changed: its description, its clip).
    private func list(_ number: Int, _ json: JSON) {
        lock.withLock {
            listed.removeAll { $0.fire == number }
            listed.append((number, json))
            if listed.count > 12 { listed.removeFirst(listed.count - 12) }
        }
        state.fire(json)
    }

    /// A fire as the page lists it: its JSON as it left lookd, what its row shows, and its
    /// description once it has one.
    static func shown(_ fire: FireOutcome, _ describe: DescribeOutcome?) -> JSON? {
        guard case .object(var fields)? = fire.context?.json else { return nil }
        fields.append(("shown", .string(fire.result.performed ? fire.result.shown : fire.result.outcome)))
        if let describe { fields.append(("description", .optional(describe.text))) }
        return .object(fields)
    }
}
