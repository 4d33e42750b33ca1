import LookCore
import ReactionDomain

/// One rule: a thing to look for, in words, and the one thing to do when the model sees it.
public struct Rule: Sendable, Equatable {
    /// The condition as written (`a chessboard`), trimmed.
    public var condition: String
    public var reaction: Reaction
    /// Where the rule is written (1-based line and column of its `when:`), for messages.
    public var line: Int
    public var column: Int
    /// Its own firing settings (the defaults: the README's firing rule).
    public var settings: RuleSettings

    /// Its reaction's outbound URLs are known as such from here on (masked in whatever is written),
    /// unless the rule says `show_url: true`.
    public init(condition: String, reaction: Reaction, line: Int = 0, column: Int = 0, settings: RuleSettings = RuleSettings()) {
        self.condition = condition
        var reaction = reaction
        reaction.showsURL = settings.showURL
        if !settings.showURL { reaction.base.outboundURLs.forEach(Secrets.registerOutbound) }
        self.reaction = reaction
        self.line = line
        self.column = column
        self.settings = settings
    }
}
