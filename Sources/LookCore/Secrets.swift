import Foundation

/// The one rule for secrets (the page's token, MQTT's and posts' passwords, API keys): masked
/// wherever anything is written or shown, and never passed on to a `run:` command.
public enum Secrets {
    /// What a secret is shown as.
    public static let mask = "***"
    /// Options whose value is a secret.
    public static let options: Set<String> = ["http-token"]
    /// Query keys whose value is a secret (`?token=…` in a webhook's URL).
    static let queryKeys: Set<String> = ["token", "key", "apikey", "api_key", "password", "secret", "auth", "access_token"]

    /// Whether an environment variable holds a secret: lookd's own (`LOOKD_MQTT_PASSWORD`,
    /// `LOOKD_HTTP_TOKEN`, `LOOKD_API_KEY`, and any `LOOKD_…` ending so), and the Hub's `HF_TOKEN`.
    public static func isSecret(environment name: String) -> Bool {
        if name == "HF_TOKEN" { return true }
        guard name.hasPrefix("LOOKD_") else { return false }
        return ["PASSWORD", "TOKEN", "KEY", "SECRET"].contains { name.hasSuffix($0) }
    }

    /// A URL with its password and its secret query values masked.
    public static func masked(url: String) -> String {
        guard var parts = URLComponents(string: url), parts.scheme != nil else { return maskedPasswords(in: url) }
        var changed = false
        if parts.password != nil {
            parts.password = mask
            changed = true
        }
        if let items = parts.queryItems, items.contains(where: { queryKeys.contains($0.name.lowercased()) }) {
            parts.queryItems = items.map { queryKeys.contains($0.name.lowercased()) ? URLQueryItem(name: $0.name, value: mask) : $0 }
            changed = true
        }
        return changed ? (parts.string ?? url).replacingOccurrences(of: "%2A%2A%2A", with: mask) : url
    }

    /// Text with every `scheme://user:password@` in it masked (a rule's inline form, a message).
    public static func maskedPasswords(in text: String) -> String {
        text.replacing(/([A-Za-z][A-Za-z0-9+.\-]*:\/\/[^\s\/@:]*):[^\s\/@]*@/) { "\($0.1):\(mask)@" }
    }

    /// A command line with the values of secret options and the passwords of URLs masked.
    public static func masked(arguments: [String]) -> [String] {
        var out: [String] = []
        var hideNext = false
        for word in arguments {
            if hideNext {
                out.append(mask)
                hideNext = false
                continue
            }
            if word.hasPrefix("--") {
                let name = String(word.dropFirst(2).prefix { $0 != "=" })
                if options.contains(name) {
                    if word.contains("=") { out.append("--\(name)=\(mask)") } else { out.append(word); hideNext = true }
                    continue
                }
            }
            out.append(word.contains("://") ? masked(url: word) : word)
        }
        return out
    }
}
