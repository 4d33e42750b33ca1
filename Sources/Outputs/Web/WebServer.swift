internal import CMicroHTTPD
import Foundation
import LookCore

/// An HTTP server on libmicrohttpd: a polling thread of its own and a thread for each connection, at
/// most `connectionLimit` connections (more are refused), idle ones closed after `idleSeconds`, and
/// those that do not send a whole request in time cut by its `ConnectionGuard`. It answers GET (and
/// HEAD) only; each request goes to `handler` on the connection's thread, never the watch's.
final class WebServer: @unchecked Sendable {
    struct Request: Sendable {
        var path: String
        var query: [String: String]
        var authorization: String?
        /// The `Host` and `Origin` headers, as sent.
        var host: String?
        var origin: String?
        /// The `Range` header (`bytes=0-1`: how phones ask for a video).
        var range: String? = nil
    }

    enum Response {
        case bytes(status: Int, type: String, body: [UInt8], headers: [(String, String)] = [])
        /// A stream of server-sent events: `next` blocks until it has text (nil ends the stream);
        /// `closed` is called once the stream is over (ended, or its reader went away).
        case stream(next: @Sendable () -> String?, closed: @Sendable () -> Void)

        static func text(_ status: Int, _ text: String, type: String = "text/plain; charset=utf-8") -> Response {
            .bytes(status: status, type: type, body: Array(text.utf8))
        }
    }

    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    private var daemon: OpaquePointer?
    /// The connections' slots, kept for requests that come whole.
    let slots: ConnectionGuard
    let handler: @Sendable (Request) -> Response
    let address: String
    let port: Int

    /// Listens on `host:port` (an IPv4 or IPv6 address).
    /// `idleSeconds`: a connection that sends nothing for that long is closed (the page's event
    /// stream says something every 2 s). One address may hold at most three quarters of the slots,
    /// and at most a quarter may wait for a request (the guard), so a client that sends whole
    /// requests always finds room beside half-sent, idle or streaming ones.
    init(
        host: String, port: Int, clock: any Clock, connectionLimit: Int = 64, idleSeconds: Int = 10,
        handler: @escaping @Sendable (Request) -> Response
    ) throws(StartError) {
        self.handler = handler
        slots = ConnectionGuard(clock: clock, waitingLimit: connectionLimit / 4, perAddress: max(1, connectionLimit * 3 / 4))
        self.port = port
        address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_ERROR_LOG.rawValue)
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let started: OpaquePointer?
        let context = Unmanaged.passUnretained(self).toOpaque()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = UInt16(port).bigEndian
            started = withUnsafePointer(to: &v4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    lookd_mhd_start(
                        flags, UInt16(port), $0, Self.access, context, UInt32(connectionLimit), UInt32(idleSeconds),
                        UInt32(max(1, connectionLimit * 3 / 4)), Self.logLine, Self.connection, Self.completed)
                }
            }
        } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = UInt16(port).bigEndian
            flags |= UInt32(MHD_USE_IPv6.rawValue)
            started = withUnsafePointer(to: &v6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    lookd_mhd_start(
                        flags, UInt16(port), $0, Self.access, context, UInt32(connectionLimit), UInt32(idleSeconds),
                        UInt32(max(1, connectionLimit * 3 / 4)), Self.logLine, Self.connection, Self.completed)
                }
            }
        } else {
            throw StartError(description: "\(SettingName.http): \"\(host)\" is not an IP address (use 127.0.0.1, 0.0.0.0 or ::)")
        }
        guard let started else {
            slots.stop()
            throw StartError(description: "\(SettingName.http): cannot listen on \(address): \(String(cString: strerror(errno)))")
        }
        daemon = started
    }

    deinit { stop() }

    func stop() {
        if let daemon { MHD_stop_daemon(daemon) }
        daemon = nil
        slots.stop()
    }

    /// libmicrohttpd's word that a connection started or closed, for the guard of its slots.
    private static let connection: MHD_NotifyConnectionCallback = { context, connection, _, code in
        guard let context, let connection else { return }
        let server = Unmanaged<WebServer>.fromOpaque(context).takeUnretainedValue()
        let id = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
        if code == LOOKD_MHD_CONNECTION_STARTED {
            server.slots.started(id, fd: lookd_mhd_connection_fd(connection))
        } else {
            server.slots.closed(id)
        }
    }

    /// A request was answered (or ended): a kept-alive connection waits for its next one.
    private static let completed: MHD_RequestCompletedCallback = { context, connection, _, _ in
        guard let context, let connection else { return }
        let server = Unmanaged<WebServer>.fromOpaque(context).takeUnretainedValue()
        server.slots.answered(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection))))
    }

    /// libmicrohttpd's access handler: called twice for a request (the first call only sets it up).
    /// libmicrohttpd's messages: a visitor that went away (a tab closed while its event stream was
    /// sent, a connection reset) is the web's everyday, not lookd's trouble, and is no journal line;
    /// anything else is a warning.
    static let logLine: lookd_mhd_line_handler = { line in
        guard let line else { return }
        WebServer.logged(String(cString: line))
    }

    static func logged(_ text: String) {
        let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !line.isEmpty, !isVisitorGone(line) else { return }
        Log.shared.warning("page: \(line)")
    }

    static func isVisitorGone(_ line: String) -> Bool {
        ["Failed to send", "Connection reset", "Broken pipe", "closed by remote", "Socket disconnected"].contains { line.contains($0) }
    }

    private static let access: MHD_AccessHandlerCallback = { context, connection, url, method, _, _, uploadSize, state in
        guard let context, let connection, let state else { return LOOKD_MHD_NO }
        // The first call of each request (its headers are in): say "go on" and answer on the second.
        if state.pointee == nil {
            state.pointee = UnsafeMutableRawPointer(bitPattern: 1)
            Unmanaged<WebServer>.fromOpaque(context).takeUnretainedValue().slots.requested(
                UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection))))
            return LOOKD_MHD_YES
        }
        // A request with a body (a POST): the body is read and dropped, a piece a call (nothing is
        // kept), so the answer (405) goes out on a connection still open.
        if let uploadSize, uploadSize.pointee > 0 {
            uploadSize.pointee = 0
            return LOOKD_MHD_YES
        }
        let server = Unmanaged<WebServer>.fromOpaque(context).takeUnretainedValue()
        let verb = method.map { String(cString: $0) } ?? ""
        let response: Response
        if verb != "GET" && verb != "HEAD" {
            response = .text(405, "405 method not allowed: lookd's page is read-only (GET)\n")
        } else {
            var query: [String: String] = [:]
            for key in ["token", "n", "rule", "camera", "day", "page"] {
                if let value = MHD_lookup_connection_value(connection, LOOKD_MHD_GET_ARGUMENT_KIND, key) { query[key] = String(cString: value) }
            }
            func header(_ name: String) -> String? {
                MHD_lookup_connection_value(connection, LOOKD_MHD_HEADER_KIND, name).map { String(cString: $0) }
            }
            response = server.handler(
                Request(
                    path: url.map { String(cString: $0) } ?? "/", query: query, authorization: header("Authorization"), host: header("Host"),
                    origin: header("Origin"), range: header("Range")))
        }
        return server.queue(response, on: connection, method: verb)
    }

    private func queue(_ response: Response, on connection: OpaquePointer, method: String) -> MHD_Result {
        switch response {
        case .bytes(let status, let type, let body, let headers):
            let reply = body.withUnsafeBytes {
                MHD_create_response_from_buffer(body.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), LOOKD_MHD_RESPMEM_MUST_COPY)
            }
            guard let reply else { return LOOKD_MHD_NO }
            defer { MHD_destroy_response(reply) }
            MHD_add_response_header(reply, "Content-Type", type)
            MHD_add_response_header(reply, "Cache-Control", "no-store")
            MHD_add_response_header(reply, "X-Content-Type-Options", "nosniff")
            if status == 405 { MHD_add_response_header(reply, "Allow", "GET, HEAD") }
            if status == 401 { MHD_add_response_header(reply, "WWW-Authenticate", "Bearer realm=\"lookd\"") }
            for (name, value) in headers { MHD_add_response_header(reply, name, value) }
            return MHD_queue_response(connection, UInt32(status), reply)
        case .stream(let next, let closed):
            let box = Unmanaged.passRetained(StreamBox(next: next, closed: closed)).toOpaque()
            let reply = MHD_create_response_from_callback(
                LOOKD_MHD_SIZE_UNKNOWN, 4096,
                { context, _, buffer, max in
                    guard let context, let buffer else { return -1 }
                    let stream = Unmanaged<StreamBox>.fromOpaque(context).takeUnretainedValue()
                    if stream.pending.isEmpty {
                        guard let text = stream.next() else { return -1 } // MHD_CONTENT_READER_END_OF_STREAM
                        stream.pending = Array(text.utf8)
                    }
                    let n = min(max, stream.pending.count)
                    stream.pending.withUnsafeBytes { buffer.update(from: $0.baseAddress!.assumingMemoryBound(to: CChar.self), count: n) }
                    stream.pending.removeFirst(n)
                    return n
                }, box,
                { context in
                    guard let context else { return }
                    let stream = Unmanaged<StreamBox>.fromOpaque(context)
                    stream.takeUnretainedValue().closed()
                    stream.release()
                })
            guard let reply else { return LOOKD_MHD_NO }
            defer { MHD_destroy_response(reply) }
            MHD_add_response_header(reply, "Content-Type", "text/event-stream")
            MHD_add_response_header(reply, "Cache-Control", "no-store")
            return MHD_queue_response(connection, 200, reply)
        }
    }

    private final class StreamBox {
        let next: @Sendable () -> String?
        let closed: @Sendable () -> Void
        var pending: [UInt8] = []
        init(next: @escaping @Sendable () -> String?, closed: @escaping @Sendable () -> Void) {
            self.next = next
            self.closed = closed
        }
    }
}
