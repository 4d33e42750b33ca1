import LookCore

/// `post: URL`, or `post:` with `url`, `format` (json|text), `headers` (a map), `snapshot`
/// (true|false) and `wait` (description|clip|none) (inline: `post:URL`): an HTTP POST of the fire.
public struct PostReaction: ReactionKind {
    public static let key = "post"
    public static var inlineHelp: String { "post:<URL>" }
    public static var inlineExample: String { "post:http://host/hook" }

    public var post: Post

    public init(post: Post) { self.post = post }

    public var name: String { "post" }
    public var inlineForm: String { "post:" + post.url }
    public var shownForm: String { "post:" + post.shownURL }
    public var outboundURLs: [String] { [post.url] }
    public var checkedForm: String {
        var options = [post.format.rawValue]
        if post.snapshot { options.append("with the snapshot") }
        options += post.headers.map { "header \($0.name): \(Secrets.mask)" }
        if post.waitForDescription { options.append("wait: description") }
        if post.waitForClip { options.append("wait: clip") }
        return shownForm + " (" + options.joined(separator: ", ") + ")"
    }
    public var waitsForDescription: Bool { post.waitForDescription }
    public var waitsForClip: Bool { post.waitForClip }

    public static func read(_ value: ReactionValue) throws(ReactionProblem) -> PostReaction {
        var url: String?
        var format: String?
        var headers: [(String, String)] = []
        var snapshot = false
        var wait = "none"
        switch value {
        case .word(let text, _, _): url = text
        case .list: throw value.problem("post: is a URL, or a map with url, format, headers and snapshot")
        case .map(let pairs, _, _):
            for (key, item) in pairs {
                switch key {
                case "url": url = try item.word("url")
                case "format": format = try item.word("format")
                case "snapshot":
                    guard let t = item.text?.lowercased(), ["true", "false", "yes", "no", "on", "off"].contains(t) else {
                        throw item.problem("snapshot: is true or false")
                    }
                    snapshot = ["true", "yes", "on"].contains(t)
                case "wait":
                    guard let t = item.text?.lowercased(), ["description", "clip", "none"].contains(t) else {
                        throw item.problem("wait: is description (the post goes with the fire's description), clip (with its clip) or none")
                    }
                    wait = t
                case "headers":
                    guard case .map(let list, _, _) = item else { throw item.problem("headers: is a map, like {Title: Door}") }
                    for (name, header) in list {
                        guard let value = header.text else { throw header.problem("a header is a name and one value") }
                        headers.append((name, value))
                    }
                default: throw item.problem("unknown key \"\(key)\" in post:; use url, format, headers, snapshot or wait")
                }
            }
            guard url != nil else { throw value.problem("post: needs url:") }
        }
        var post = try checked(url: url ?? "", format: format, headers: headers, snapshot: snapshot, at: value)
        (post.waitForDescription, post.waitForClip) = (wait == "description", wait == "clip")
        return PostReaction(post: post)
    }

    public static func inline(_ text: String) throws(ReactionProblem) -> PostReaction {
        PostReaction(post: try checked(url: text, format: nil, headers: [], snapshot: false, at: nil))
    }

    /// An http or https URL with a host; headers are single lines.
    static func checked(
        url: String, format: String?, headers: [(String, String)], snapshot: Bool, at value: ReactionValue?
    ) throws(ReactionProblem) -> Post {
        let text = url.trimmingCharacters(in: .whitespaces)
        if let problem = PlainWords.controlCharacter(in: text, what: "the post's URL") { throw ReactionProblem(problem, at: value) }
        switch Post.urlProblem(text) {
        case .notHTTP: throw ReactionProblem("post needs an http:// or https:// URL with a host, not \"\(Secrets.masked(url: url))\"", at: value)
        case .space: throw ReactionProblem("the post's URL has a space in it; write %20 for one", at: value)
        case .port(let port): throw ReactionProblem("the post's URL names port \(port); a port is 1 to 65535", at: value)
        case nil: break
        }
        var chosen = Post.Format.json
        if let format {
            guard let f = Post.Format(rawValue: format.lowercased()) else {
                throw ReactionProblem("format: is json or text, not \"\(format)\"", at: value)
            }
            chosen = f
        }
        if snapshot && chosen == .text { throw ReactionProblem("snapshot: true needs format: json (a text post is one line)", at: value) }
        var list: [Post.Header] = []
        for (name, value) in headers {
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) }) else {
                throw ReactionProblem("\"\(name.withVisibleControls())\" is not a header name (letters, digits, - and _)")
            }
            if let problem = PlainWords.controlCharacter(in: value, what: "the header \(name)") { throw ReactionProblem(problem) }
            list.append(Post.Header(name: name, value: value))
        }
        return Post(url: text, format: chosen, headers: list, snapshot: snapshot)
    }

    public func perform(_ fire: FireContext, _ services: any ReactionServices) -> ReactionResult {
        services.send(post, fire: fire, shown: "post")
    }
}
