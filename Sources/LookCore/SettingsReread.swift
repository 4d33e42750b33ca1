/// Reads a file's settings again at a reload, as the start read them: the running `Config` with
/// what a reload may change taken from the file, and which settings changed.
public protocol SettingsRereader<Config>: Sendable {
    associatedtype Config
    func reread(file: [String: GivenSetting], running: Config) throws(SettingProblem) -> SettingsReread<Config>
}

/// What a reload's settings became: the settings with the file's live changes, the names of those
/// that changed live, and of those that changed in the file but need a restart.
public struct SettingsReread<Config> {
    public var config: Config
    public var applied: [String]
    public var needRestart: [String]

    public init(config: Config, applied: [String] = [], needRestart: [String] = []) {
        self.config = config
        self.applied = applied
        self.needRestart = needRestart
    }
}

extension SettingsReread: Sendable where Config: Sendable {}
