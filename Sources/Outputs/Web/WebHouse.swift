import Foundation
import LookCore
import Records

/// The one page of a watch of several cameras (`--http` with cameras): one server on the one
/// address, where `/` shows a tile a camera (its picture, its state, its rules' answers and
/// strips), each camera's own page is `/camera/NAME/` (everything a page of one camera serves,
/// below it), `/history` lists every camera's fires (`?camera=` for one), and `/metrics` has every
/// camera's samples, each labelled with its camera. Each camera's `WebOutput` joins when its watch
/// starts and leaves when it stops; a reload that adds, stops or reopens a camera changes the tiles.
public final class WebHouse: @unchecked Sendable {
    private let listen: WebOutput.Listen
    private let token: String?
    private let history: String?
    private let clock: any Clock
    private let lock = NSLock()
    private var server: WebServer?
    /// The cameras' pages, by name, and the names in the order they first came.
    private var pages: [String: WebOutput] = [:]
    private var order: [String] = []
    /// The cameras whose watch ended (a video's end, a failure), with their last page.
    private var ended: [String: WebOutput] = [:]
    /// The event streams of every camera's page, counted together.
    let streams = StreamSlots()
    /// The cameras that are not watched (their source did not open), and why.
    private var absent: [String: String] = [:]

    /// Serves on `listen`, its token (nil: this machine only) and the cameras' one history.
    public init(listen: WebOutput.Listen, token: String?, history: String?, clock: any Clock) {
        (self.listen, self.token, self.history, self.clock) = (listen, token, history, clock)
    }

    /// Starts serving, before any camera starts: an address that cannot be had fails the watch
    /// once, not each camera.
    public func open() throws(OutputFailure) {
        lock.lock()
        defer { lock.unlock() }
        try serve()
    }

    /// The server, started when it is not; the lock held.
    private func serve() throws(OutputFailure) {
        guard server == nil else { return }
        let host = listen.host == "localhost" ? "127.0.0.1" : listen.host
        do throws(WebServer.StartError) {
            server = try WebServer(host: host, port: listen.port, clock: clock) { [weak self] request in
                self?.answer(request) ?? .text(503, "stopping\n")
            }
        } catch {
            throw OutputFailure(error.description)
        }
    }

    /// The camera of `page` has a page now.
    func join(_ page: WebOutput) throws(OutputFailure) {
        let name = page.camera.name
        lock.lock()
        defer { lock.unlock() }
        try serve()
        if !order.contains(name) { order.append(name) }
        (pages[name], absent[name], ended[name]) = (page, nil, nil)
    }

    /// The camera of `page` stopped (a reload that reopens it joins again with its new page): its
    /// tile stays, with its last status and frame, and says its watch ended (a reload that takes
    /// the camera out of the file takes the tile away).
    func leave(_ page: WebOutput) {
        lock.withLock {
            let name = page.camera.name
            if pages[name] === page { (pages[name], ended[name]) = (nil, page) }
        }
    }

    /// A camera that is not watched: its tile says why.
    public func notWatched(_ camera: String, because reason: String) {
        lock.withLock {
            if !order.contains(camera) { order.append(camera) }
            absent[camera] = reason
        }
    }

    /// The watch's cameras, in the order of their tiles (the file's): at the start, and at each
    /// reload, after which one no longer among them that was not watched has no tile.
    public func expect(_ names: [String]) {
        lock.withLock {
            order = names + order.filter { !names.contains($0) }
            absent = absent.filter { names.contains($0.key) }
            ended = ended.filter { names.contains($0.key) }
        }
    }

    /// Stops serving (the watch is over).
    public func stop() {
        let server = lock.withLock { () -> WebServer? in
            defer { self.server = nil }
            return self.server
        }
        server?.stop()
    }

    /// The cameras in order: each one's page, or why it is not watched.
    private var cameras: [(name: String, page: WebOutput?, absent: String?)] {
        lock.withLock {
            order.compactMap { name in
                if let page = pages[name] { return (name, page, nil) }
                if let page = ended[name] { return (name, page, "its watch ended; its last status and picture are shown") }
                return absent[name].map { (name, nil, $0) }
            }
        }
    }

    func answer(_ request: WebServer.Request) -> WebServer.Response {
        if let refusal = WebOutput.refusal(request, token: token) { return refusal }
        if request.path.hasPrefix("/camera/") { return camera(request) }
        switch request.path {
        case "/", "/index.html": return .text(200, HousePage.html(state: camerasJSON()), type: "text/html; charset=utf-8")
        case "/api/cameras": return .text(200, camerasJSON(), type: "application/json")
        case "/history":
            return .text(200, HistoryPage.html(initial: historyJSON(request).body), type: "text/html; charset=utf-8")
        case "/api/history":
            let (status, body) = historyJSON(request)
            return .text(status, body, type: "application/json")
        case "/metrics":
            let families = cameras.compactMap { camera in camera.page.map { (CameraName(camera.name), $0.metrics.families()) } }
            return .text(200, Metrics.text(families), type: "text/plain; version=0.0.4; charset=utf-8")
        default:
            return .text(404, "404: lookd serves /, /api/cameras, /history, /api/history, /metrics and each camera's page at /camera/NAME/\n")
        }
    }

    /// `/camera/NAME/…`: that camera's page, below its base (`/camera/NAME` is sent on to `/camera/NAME/`).
    private func camera(_ request: WebServer.Request) -> WebServer.Response {
        let rest = request.path.dropFirst("/camera/".count)
        let name = String(rest.prefix { $0 != "/" })
        guard let page = lock.withLock({ pages[name] }) else {
            let reason = lock.withLock { absent[name] }
            return .text(404, reason.map { "404: the camera \(name) is not watched: \($0)\n" } ?? "404: no camera of that name is watched here\n")
        }
        let below = String(rest.dropFirst(name.count))
        guard !below.isEmpty else {
            let token = request.query["token"].flatMap { $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) }
            let location = CameraName(name).pagePath + "/" + (token.map { "?token=" + $0 } ?? "")
            return .bytes(status: 308, type: "text/plain; charset=utf-8", body: Array("see \(location)\n".utf8), headers: [("Location", location)])
        }
        var inner = request
        inner.path = below
        return page.route(inner)
    }

    /// `/api/history` of every camera, each fire's snapshot and clip served by its camera's page.
    private func historyJSON(_ request: WebServer.Request) -> (status: Int, body: String) {
        HistoryPage.json(path: history, query: request.query, now: clock.date(), cameras: cameras.map(\.name)) { camera in
            camera.pagePath
        }
    }

    /// `/api/cameras`: each camera's name, page, status and answered frame, or why it is not watched.
    func camerasJSON() -> String {
        let items = cameras.map { camera -> String in
            let fields = [
                "\"camera\":" + JSON.string(camera.name).text(), "\"page\":" + JSON.string(CameraName(camera.name).pagePath + "/").text(),
                "\"status\":" + (camera.page?.state.statusText ?? "null"),
                "\"frame\":" + (camera.page?.state.frameIndex.map(String.init) ?? "null"),
                "\"not_watched\":" + JSON.optional(camera.page == nil ? camera.absent : nil).text(),
                "\"ended\":" + JSON.optional(camera.page != nil ? camera.absent : nil).text(),
            ]
            return "{" + fields.joined(separator: ",") + "}"
        }
        return "[" + items.joined(separator: ",") + "]"
    }
}
