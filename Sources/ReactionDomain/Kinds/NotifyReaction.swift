import Foundation
import LookCore

/// `notify:`: a fire on a phone, with its snapshot. ntfy's publish form (docs.ntfy.sh/publish): a
/// POST to the topic's URL with the snapshot as the body (`Filename`, the message in `Message`) or
/// the message as the body, and `Title`, `Priority`, `Tags` and `Click` headers; a header that is
/// not ASCII goes as RFC 2047 (`=?UTF-8?B?…?=`), which ntfy reads. Gotify takes the title, message
/// and priority as JSON (no picture). Pushover (pushover.net/api) takes a form: `token`, `user`,
/// `message`, `title`, `priority` (-2 to 1: its 2 needs an acknowledgement lookd does not ask for),
/// `url` (the click link) and the snapshot as `attachment`. The token comes from
/// LOOKD_NOTIFY_TOKEN (Pushover's user key from LOOKD_NOTIFY_USER), never from the file.
///
///     notify: https://ntfy.sh/my-door-1f9c          # or, with options:
///     notify:
///       url: https://ntfy.example.com/door
///       title: At the door                         # default: the rule's words
///       priority: high                             # min, low, default, high, urgent, or 1–5
///       tags: [door, warning]
///       click: http://127.0.0.1:8470/              # what a tap opens (default: the page's /history)
///       picture: false                             # default true: the snapshot (needs --snapshots)
///       wait: description                          # the fire's sentence as the message
///       service: gotify                            # default ntfy; pushover needs no url
public struct NotifyReaction: ReactionKind {
    public enum Service: String, Sendable, CaseIterable {
        case ntfy, gotify, pushover
    }

    /// Pushover's one endpoint, the URL a `service: pushover` without one posts to.
    public static let pushoverURL = "https://api.pushover.net/1/messages.json"

    public static let key = "notify"
    /// The environment variable the token is read from (ntfy: `Bearer`, Gotify: its app token).
    public static let tokenVariable = "LOOKD_NOTIFY_TOKEN"
    /// Pushover's user (or group) key.
    public static let userVariable = "LOOKD_NOTIFY_USER"
    static let priorities = ["min": 1, "low": 2, "default": 3, "high": 4, "urgent": 5, "max": 5]

    public var url: String
    public var service = Service.ntfy
    public var title: String?
    public var priority: Int?
    public var tags: [String] = []
    public var click: String?
    public var picture = true
    public var wait = false

    public var name: String { "notify" }
    public var inlineForm: String { "notify:" + url }
    public var shownForm: String { "notify:" + Secrets.outbound(url: url) }
    /// The topic's URL is a capability (anyone who has it reads the pictures): outbound. The click
    /// link is lookd's own page, shown with its secrets masked as any URL is.
    public var outboundURLs: [String] { [url] }
    public var checkedForm: String {
        var options = [service.rawValue, needsSnapshot ? "with the snapshot" : "no picture"]
        if let title { options.append("title \"\(title)\"") }
        if let priority { options.append("priority \(priority)") }
        if !tags.isEmpty { options.append("tags \(tags.joined(separator: ","))") }
        if let click { options.append("click \(Secrets.masked(url: click))") }
        if wait { options.append("wait: description") }
        return shownForm + " (" + options.joined(separator: ", ") + ")"
    }
    public var waitsForDescription: Bool { wait }
    public var needsSnapshot: Bool { picture && service != .gotify }
    public var recordFields: [(String, JSON)] { [("notify", .string(Secrets.outbound(url: url))), ("service", .string(service.rawValue))] }

    public static func inline(_ text: String) throws(ReactionProblem) -> NotifyReaction {
        NotifyReaction(url: try checkedURL(text, at: nil))
    }

    /// Its problems are named `notify: …` (the inline form names the rule instead).
    public static func read(_ value: ReactionValue) throws(ReactionProblem) -> NotifyReaction {
        do throws(ReactionProblem) { return try readValue(value) } catch {
            throw ReactionProblem(key + ": " + error.text, line: error.line, column: error.column)
        }
    }

    static func readValue(_ value: ReactionValue) throws(ReactionProblem) -> NotifyReaction {
        if let text = value.text { return NotifyReaction(url: try checkedURL(text, at: value)) }
        guard case .map(let pairs, _, _) = value else { throw value.problem("is a topic URL, or a map with url, title, priority, tags, …") }
        var url: String?
        var notify = NotifyReaction(url: "")
        for (key, item) in pairs {
            func word() throws(ReactionProblem) -> String {
                guard let text = item.text, !text.isEmpty else { throw item.problem("\(key): takes one value") }
                if let bad = text.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
                    throw item.problem("\(key): holds the control character U+\(String(bad.value, radix: 16, uppercase: true))")
                }
                return text
            }
            switch key {
            case "url": url = try checkedURL(try word(), at: item)
            case "title": notify.title = try word()
            case "click": notify.click = try checkedURL(try word(), at: item, topic: false)
            case "priority":
                let text = try word().lowercased()
                guard let p = priorities[text] ?? Int(text).flatMap({ (1...5).contains($0) ? $0 : nil }) else {
                    throw item.problem("priority: is min, low, default, high or urgent (or 1 to 5), not \"\(text)\"")
                }
                notify.priority = p
            case "tags":
                let words: [String?] = if case .list(let items, _, _) = item { items.map(\.text) } else { [item.text] }
                notify.tags = words.compactMap { $0 }.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
                guard words.allSatisfy({ $0 != nil }), notify.tags.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && !$0.isWhitespace } })
                else { throw item.problem("tags: is a list of words without spaces, like [door, warning]") }
            case "picture":
                switch try word().lowercased() {
                case "true", "yes", "on": notify.picture = true
                case "false", "no", "off": notify.picture = false
                case let other: throw item.problem("picture: is true or false, not \"\(other)\"")
                }
            case "wait":
                switch try word().lowercased() {
                case "description": notify.wait = true
                case "none": notify.wait = false
                case let other: throw item.problem("wait: is description (the fire's sentence as the message) or none, not \"\(other)\"")
                }
            case "service":
                let text = try word().lowercased()
                guard let service = Service(rawValue: text) else { throw item.problem("service: is ntfy, gotify or pushover, not \"\(text)\"") }
                notify.service = service
            default: throw item.problem("unknown key \"\(key)\"; notify: takes url, title, priority, tags, click, picture, wait and service")
            }
        }
        guard let url = url ?? (notify.service == .pushover ? pushoverURL : nil) else {
            throw value.problem("needs url: (ntfy's topic URL, like https://ntfy.sh/my-door-1f9c)")
        }
        notify.url = url
        return notify
    }

    /// An http or https URL with a host (and, for a topic, a path).
    static func checkedURL(_ text: String, at value: ReactionValue?, topic: Bool = true) throws(ReactionProblem) -> String {
        let url = text.trimmingCharacters(in: .whitespaces)
        switch Post.urlProblem(url) {
        case .notHTTP: throw ReactionProblem("needs an http:// or https:// URL with a host, not \"\(Secrets.masked(url: text))\"", at: value)
        case .space: throw ReactionProblem("the URL has a space in it; write %20 for one", at: value)
        case .port(let port): throw ReactionProblem("the URL names port \(port); a port is 1 to 65535", at: value)
        case nil: break
        }
        if topic && (URLComponents(string: url)?.path ?? "").split(separator: "/").isEmpty {
            throw ReactionProblem(
                "\(Secrets.masked(url: url)) names no topic: write the topic after the host, like https://ntfy.sh/my-door-1f9c", at: value)
        }
        return url
    }

    public func perform(_ fire: FireContext, _ services: any ReactionServices) -> ReactionResult {
        services.send(request(for: fire), fire: fire, shown: name)
    }

    /// The request for `fire`, in the service's form.
    public func request(for fire: FireContext, environment: [String: String] = ProcessInfo.processInfo.environment) -> Post {
        let title = self.title ?? fire.condition
        let message = message(for: fire)
        let token = environment[Self.tokenVariable].flatMap { $0.isEmpty ? nil : $0 }
        var post = Post(url: url)
        switch service {
        case .ntfy:
            var headers = [("Title", title)]
            if let priority { headers.append(("Priority", String(priority))) }
            if !tags.isEmpty { headers.append(("Tags", tags.joined(separator: ","))) }
            if let click = click ?? fire.page { headers.append(("Click", click)) }
            if let token { headers.append(("Authorization", "Bearer " + token)) }
            if picture, let snapshot = fire.snapshot {
                headers += [("Filename", (snapshot as NSString).lastPathComponent), ("Message", message)]
                post.body = .picture(orText: message)
            } else {
                post.body = .text(message, type: "text/plain; charset=utf-8")
            }
            post.headers = headers.map { Post.Header(name: $0.0, value: Self.headerValue($0.1)) }
        case .gotify:
            // Gotify's priorities run 0–10; ntfy's 1–5 spread over them.
            let json = JSON.object([
                ("title", .string(title)), ("message", .string(message)), ("priority", .int([1: 1, 2: 3, 3: 5, 4: 8, 5: 10][priority ?? 3]!)),
            ])
            post.body = .text(json.text(), type: "application/json")
            if let token { post.headers = [Post.Header(name: "X-Gotify-Key", value: Self.headerValue(token))] }
        case .pushover:
            var fields = [("token", token ?? ""), ("user", environment[Self.userVariable] ?? ""), ("title", title), ("message", message)]
            // ntfy's 1–5 over Pushover's -2…1 (its 2, an emergency, must be acknowledged).
            if let priority { fields.append(("priority", String([1: -2, 2: -1, 3: 0, 4: 1, 5: 1][priority]!))) }
            if let click = click ?? fire.page { fields.append(("url", click)) }
            post.body = .form(fields.map { Post.Header(name: $0.0, value: $0.1) }, attachment: picture ? "attachment" : nil)
        }
        return post
    }

    /// The message: the fire's sentence when it waited for one, else the rule's words, the frame
    /// and the confidence.
    func message(for fire: FireContext) -> String {
        if wait, let description = fire.description { return description }
        var text = "\(fire.condition), frame \(fire.frame)"
        if let confidence = fire.confidence { text += String(format: ", P(yes) %.2f", confidence) }
        if wait, let problem = fire.descriptionProblem { text += " (no description: \(problem))" }
        return text
    }

    /// A header's value on one line; one that is not ASCII in RFC 2047's base64 form, which ntfy
    /// decodes (a header carries ASCII whole; UTF-8 bytes reach some servers as `?`).
    static func headerValue(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        guard line.unicodeScalars.contains(where: { !$0.isASCII || $0.value < 0x20 || $0.value == 0x7F }) else { return line }
        let printable = String(line.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        return "=?UTF-8?B?" + Data(printable.utf8).base64EncodedString() + "?="
    }
}
