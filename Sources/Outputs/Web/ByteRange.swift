import Foundation

/// One byte range of a file served whole otherwise (RFC 9110, 14): `bytes=FIRST-LAST`, `bytes=FIRST-`
/// or `bytes=-SUFFIX`. Phones' video players ask for a clip in ranges and play nothing served
/// without them; a range past the end is 416, and a header lookd does not read (several ranges, other
/// units) gets the whole file, as the standard allows.
extension WebServer.Response {
    func ranged(_ header: String?) -> WebServer.Response {
        guard case .bytes(200, let type, let body, let headers) = self else { return self }
        let whole = WebServer.Response.bytes(status: 200, type: type, body: body, headers: headers + [("Accept-Ranges", "bytes")])
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return whole }
        let ends = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard ends.count == 2 else { return whole }
        let count = body.count
        var first: Int, last: Int
        if ends[0].isEmpty {
            guard let suffix = Int(ends[1]), suffix > 0 else { return whole }
            (first, last) = (max(0, count - suffix), count - 1)
        } else {
            guard let from = Int(ends[0]), from >= 0 else { return whole }
            first = from
            last = ends[1].isEmpty ? count - 1 : (Int(ends[1]).map { min($0, count - 1) } ?? -1)
            guard last >= first || first >= count else { return whole }
        }
        guard first < count else {
            return .bytes(
                status: 416, type: "text/plain; charset=utf-8", body: Array("range not satisfiable\n".utf8),
                headers: [("Content-Range", "bytes */\(count)")])
        }
        return .bytes(
            status: 206, type: type, body: Array(body[first...last]),
            headers: headers + [("Accept-Ranges", "bytes"), ("Content-Range", "bytes \(first)-\(last)/\(count)")])
    }
}
