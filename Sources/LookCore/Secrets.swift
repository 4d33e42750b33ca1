import Foundation

/// The one rule for secrets (the page's token, MQTT's and posts' passwords, API keys): masked
/// wherever anything is written or shown, and never passed on to a `run:` command.
public enum Secrets {
    /// What a secret is shown as.
    public static let mask = "***"
    /// Options whose value is a secret.
    public static let options: Set<String> = [SettingName.httpToken.key]
    /// Options whose value is a URL lookd sends to: shown as `outbound(url:)` shows one.
    public static let outboundOptions: Set<String> = [SettingName.engine.key, SettingName.mqtt.key]
    /// Parts of query keys whose value is a secret: `?token=`, `?key=`, `?api_key=`, `?code=` and
    /// `?sig=` (Azure functions, SAS), `?password=`, `?session=`, `?auth=` … (a key that holds one of
    /// these anywhere: masking a harmless value costs less than showing a secret).
    static let queryKeyParts = ["token", "key", "secret", "pass", "pwd", "auth", "sig", "code", "session", "credential", "jwt"]

    /// Whether a query key names a secret.
    static func isSecret(queryKey key: String) -> Bool {
        let k = key.lowercased()
        return queryKeyParts.contains { k.contains($0) }
    }

    /// Whether a path segment looks like a secret: a webhook's token in its path (Slack's
    /// `/services/T…/B…/SECRET`, Discord's `/api/webhooks/ID/TOKEN`): at least 20 letters, digits,
    /// `-` or `_`, with upper and lower case and digits, and at most two `-` or `_` (a name such as
    /// `MiniCPM-V-4_7-1B-gguf` is words, not a token).
    static func isSecret(pathSegment s: Substring) -> Bool {
        guard s.count >= 20, s.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return false }
        return s.contains(where: \.isUppercase) && s.contains(where: \.isLowercase) && s.contains(where: \.isNumber)
            && s.filter({ $0 == "-" || $0 == "_" }).count <= 2
    }

    /// Whether an environment variable holds a secret: lookd's own (`LOOKD_MQTT_PASSWORD`,
    /// `LOOKD_HTTP_TOKEN`, `LOOKD_API_KEY`, and any `LOOKD_…` ending so), and the Hub's `HF_TOKEN`.
    public static func isSecret(environment name: String) -> Bool {
        if name == "HF_TOKEN" { return true }
        guard name.hasPrefix("LOOKD_") else { return false }
        return ["PASSWORD", "TOKEN", "KEY", "SECRET"].contains { name.hasSuffix($0) }
    }

    /// Whether a `run:` command gets a variable of lookd's environment: not lookd's own settings
    /// (every `LOOKD_…`: the fire's own are set apart), nor one whose name says it holds a secret
    /// (`…TOKEN…`, `…PASSWORD…`, `…SECRET…`, `…_KEY`, `…CREDENTIAL…`, `HF_TOKEN`).
    public static func isPassedOn(environment name: String) -> Bool {
        let upper = name.uppercased()
        if upper.hasPrefix("LOOKD_") || isSecret(environment: name) { return false }
        return !["TOKEN", "PASSWORD", "PASSWD", "SECRET", "CREDENTIAL"].contains { upper.contains($0) } && !upper.hasSuffix("_KEY")
            && !upper.hasSuffix("APIKEY")
    }

    /// An outbound URL (a post's, a notification's, the engine's, MQTT's, a command's argument, a
    /// camera's stream) as it is shown: scheme, user, host and port, and its password, path and
    /// query masked whatever they look like (a webhook's token, a bot's key, an ntfy topic, a DVR's
    /// `/user=admin&password=…` are where they are, not what they look like). A web URL's user with
    /// no password is a token (`http://TOKEN@host/`) and is masked too.
    /// `https://discord.com/api/webhooks/1/xyz` shows as `https://discord.com/***`.
    public static func outbound(url: String) -> String {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme, let host = parts.host, !host.isEmpty else {
            return url.contains("://") ? mask : url
        }
        let port = parts.port.map { ":\($0)" } ?? ""
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let rest = parts.percentEncodedPath.isEmpty || parts.percentEncodedPath == "/" ? (parts.query == nil ? "" : "/\(mask)") : "/\(mask)"
        // A web URL's user with no password is a token (`https://TOKEN@api…/`); MQTT's or a camera's is a name.
        let token = parts.password == nil && ["http", "https"].contains(scheme.lowercased())
        let user = parts.percentEncodedUser.map { token ? "\(mask)@" : "\($0)\(parts.password == nil ? "" : ":" + mask)@" } ?? ""
        return "\(scheme)://\(user)\(bracketed)\(port)\(rest)"
    }

    /// The outbound URLs this process was given, so a message that quotes one (a library's error,
    /// a log line) shows it masked too, wherever it is written.
    private static let known = KnownURLs()

    /// Marks `url` as outbound: from now on every text written masks it as `outbound(url:)` does,
    /// quoted whole (even where it holds a space or a comma) or as a longer URL under it.
    public static func registerOutbound(_ url: String) {
        guard url.contains("://"), !url.hasPrefix("file://") else { return }
        known.add(url)
    }

    /// A URL with its password, its secret query values and the secrets in its path masked
    /// (`rtsp://admin:***@cam/…`, `…?token=***`, `…/services/T0/B0/***`).
    public static func masked(url: String) -> String {
        guard var parts = URLComponents(string: url), parts.scheme != nil else { return maskedPasswords(in: url) }
        var changed = false
        if parts.password != nil {
            parts.password = mask
            changed = true
        }
        if let items = parts.queryItems, items.contains(where: { isSecret(queryKey: $0.name) && $0.value != nil }) {
            parts.queryItems = items.map { isSecret(queryKey: $0.name) && $0.value != nil ? URLQueryItem(name: $0.name, value: mask) : $0 }
            changed = true
        }
        let segments = parts.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
        if segments.contains(where: isSecret(pathSegment:)) {
            parts.percentEncodedPath = segments.map { isSecret(pathSegment: $0) ? mask : String($0) }.joined(separator: "/")
            changed = true
        }
        return changed ? (parts.string ?? url).replacingOccurrences(of: "%2A%2A%2A", with: mask) : url
    }

    /// Text with every URL in it masked as `masked(url:)` masks one (a rule's inline form, a
    /// message, a record's field): a `scheme://user:password@` anywhere, then each whole URL.
    public static func maskedPasswords(in text: String) -> String {
        guard text.contains("://") else { return text }
        let quoted = known.raw.reduce(text) { $0.replacingOccurrences(of: $1, with: outbound(url: $1)) }
        let bare = quoted.replacing(/([A-Za-z][A-Za-z0-9+.\-]*:\/\/[^\s\/@:]*):[^\s\/@]*@/) { "\($0.1):\(mask)@" }
        return bare.replacing(/[A-Za-z][A-Za-z0-9+.\-]*:\/\/[^\s"'<>|,]+/) { match in
            let url = String(match.0)
            guard let parts = URLComponents(string: url), parts.scheme != nil else { return url }
            return known.contains(url) ? outbound(url: url) : masked(url: url)
        }
    }

    /// A command line with the values of secret options masked, outbound URLs (`--engine`,
    /// `--mqtt`) shown as scheme, host and port, and the passwords of other URLs masked.
    public static func masked(arguments: [String]) -> [String] {
        var out: [String] = []
        var hideNext = false
        var outboundNext = false
        for word in arguments {
            if hideNext || outboundNext {
                out.append(hideNext ? mask : outbound(url: word))
                (hideNext, outboundNext) = (false, false)
                continue
            }
            if word.hasPrefix("--") {
                let name = String(word.dropFirst(2).prefix { $0 != "=" })
                if options.contains(name) {
                    if word.contains("=") { out.append("--\(name)=\(mask)") } else { out.append(word); hideNext = true }
                    continue
                }
                if outboundOptions.contains(name) {
                    if let eq = word.firstIndex(of: "=") {
                        out.append("--\(name)=" + outbound(url: String(word[word.index(after: eq)...])))
                    } else {
                        out.append(word)
                        outboundNext = true
                    }
                    continue
                }
            }
            out.append(word.contains("://") ? masked(url: word) : word)
        }
        return out
    }
}

/// The outbound URLs given to this process (`Secrets.registerOutbound`), by scheme, host, port and
/// path: a text that quotes one of them, or a longer URL under one, is an outbound URL.
final class KnownURLs: @unchecked Sendable {
    private let lock = NSLock()
    private var urls: Set<String> = []
    /// The URLs as given, longest first (one that holds another is masked whole).
    private var given: [String] = []

    func add(_ url: String) {
        lock.withLock {
            urls.insert(Self.key(url))
            if !given.contains(url) { given = (given + [url]).sorted { $0.count > $1.count } }
        }
    }

    /// The URLs as given, longest first.
    var raw: [String] { lock.withLock { given } }

    func contains(_ url: String) -> Bool {
        let key = Self.key(url)
        return lock.withLock { urls.contains { key == $0 || key.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") } }
    }

    /// The URL without its query, fragment or password, lower-cased in its scheme and host, its
    /// port written out (`https://host/…` and `https://host:443/…` are one URL).
    private static func key(_ url: String) -> String {
        guard let parts = URLComponents(string: url) else { return url }
        let path = parts.percentEncodedPath
        let scheme = parts.scheme?.lowercased() ?? ""
        let port = parts.port ?? ["http": 80, "https": 443, "mqtt": 1883, "mqtts": 8883][scheme] ?? 0
        return "\(scheme)://\(parts.host?.lowercased() ?? ""):\(port)\(path.isEmpty ? "/" : path)"
    }
}

extension Secrets {
    /// A `run:` command's words as records and screens show them (docs/outputs.md lists this):
    /// - a URL as an outbound URL (scheme, user, host and port);
    /// - the value of `--NAME=VALUE`, `-NAME=VALUE` or `NAME=VALUE` whose name holds a secret's word
    ///   (`token`, `key`, `secret`, `pass`, `pwd`, `auth`, `sig`, `code`, `session`, `credential`,
    ///   `jwt`, `cookie`);
    /// - the word after `--NAME` or `-NAME` whose name holds one, and after `-u`, `--user`, `-P`;
    /// - a header's value whose name holds one (`Authorization: Bearer …`, `X-Api-Key: …`), and the
    ///   word after `Bearer`, `Basic` or `Token`;
    /// - a word that looks like a token (20 or more letters, digits, `-` and `_`, mixed case and digits).
    public static func masked(commandArguments words: [String]) -> [String] {
        var out: [String] = []
        var hideNext = false
        for word in words {
            if hideNext {
                out.append(mask)
                hideNext = false
                continue
            }
            out.append(maskedWord(word, hideNext: &hideNext))
        }
        return out
    }

    private static func isSecretName(_ name: Substring) -> Bool {
        let bare = name.drop { $0 == "-" }
        return !bare.isEmpty && (isSecret(queryKey: String(bare)) || bare.lowercased().contains("cookie"))
    }

    private static func maskedWord(_ word: String, hideNext: inout Bool) -> String {
        if word.contains("://") { return outbound(url: word) }
        if let header = word.firstMatch(of: /^([A-Za-z0-9_-]+):\s*(\S.*)$/), isSecretName(header.1) { return "\(header.1): \(mask)" }
        if let scheme = word.firstMatch(of: /^(?i)(bearer|basic|token)\s+\S.*$/) { return "\(scheme.1) \(mask)" }
        if ["bearer", "basic", "token"].contains(word.lowercased()) {
            hideNext = true
            return word
        }
        if let eq = word.firstIndex(of: "="), isSecretName(word[..<eq]) { return "\(word[..<eq])=\(mask)" }
        if word.hasPrefix("-"), !word.contains("=") {
            if isSecretName(word[...]) || ["-u", "--user", "-P"].contains(word) { hideNext = true }
            return word
        }
        return isSecret(pathSegment: word[...]) ? mask : word
    }
}
