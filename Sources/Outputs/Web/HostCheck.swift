import Foundation

/// Whether a request's `Host` or `Origin` names this machine: `localhost`, `127.x.x.x` or `[::1]`,
/// with any port. A tokenless page answers only those, so no other site's page can read it.
enum HostCheck {
    /// `Host: 127.0.0.1:8470`; a request without one (HTTP/1.0) comes from no browser and passes.
    static func isLoopback(host: String?) -> Bool {
        guard let host, !host.isEmpty else { return true }
        return isLoopbackName(withoutPort(host.lowercased()))
    }

    /// `Origin: http://localhost:8470`; none (not a browser's script) passes, `null` does not.
    static func isLoopback(origin: String?) -> Bool {
        guard let origin, !origin.isEmpty else { return true }
        guard let parts = URLComponents(string: origin.lowercased()), ["http", "https"].contains(parts.scheme ?? ""), let host = parts.host else {
            return false
        }
        return isLoopbackName(host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host)
    }

    private static func withoutPort(_ host: String) -> String {
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") { return String(host[host.index(after: host.startIndex)..<close]) }
        if let colon = host.lastIndex(of: ":"), !host[..<colon].contains(":") { return String(host[..<colon]) }
        return host
    }

    /// `localhost`, `::1` or an address in 127.0.0.0/8.
    static func isLoopbackName(_ name: String) -> Bool {
        if name == "localhost" || name == "::1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
