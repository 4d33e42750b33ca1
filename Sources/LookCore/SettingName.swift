/// The name of each of `lookd watch`'s settings, written here once: the flag is `--NAME` (this
/// type's description, so a message writes `"needs \(SettingName.snapshots)"`) and the rules file's
/// `settings:` key is `NAME:`. A setting's declaration, its help, the other commands that take it
/// and every message that names it use the case, so a renamed setting cannot live on in advice.
public enum SettingName: String, CaseIterable, Sendable, CustomStringConvertible {
    case camera
    case cameraSize = "camera-size"
    case cellWords = "cell-words"
    case cells
    case clipMemory = "clip-memory"
    case clips
    case constrain
    case context
    case cooldown
    case delay
    case describe
    case describeTimeout = "describe-timeout"
    case describeTokens = "describe-tokens"
    case effects
    case engine
    case engineTries = "engine-tries"
    case engineParallel = "engine-parallel"
    case every
    case firstTokenTimeout = "first-token-timeout"
    case frames
    case gate
    case gateFps = "gate-fps"
    case gateMask = "gate-mask"
    case gateMax = "gate-max"
    case gateThreshold = "gate-threshold"
    case grid
    case history
    case hold
    case http
    case httpToken = "http-token"
    case httpTokenFile = "http-token-file"
    case jpegQuality = "jpeg-quality"
    case keepDays = "keep-days"
    case keepSize = "keep-size"
    case keepSnapshots = "keep-snapshots"
    case log
    case mmproj
    case model
    case mqtt
    case mqttDiscovery = "mqtt-discovery"
    case mqttQueue = "mqtt-queue"
    case name
    case noSound = "no-sound"
    case pace
    case photoSeconds = "photo-seconds"
    case postRoll = "post-roll"
    case postTimeout = "post-timeout"
    case preRoll = "pre-roll"
    case record
    case reuse
    case reuseBound = "reuse-bound"
    case reuseRefresh = "reuse-refresh"
    case reuseThreshold = "reuse-threshold"
    case rules
    case runTimeout = "run-timeout"
    case seconds
    case size
    case snapshots
    case source
    case state
    case status
    case threads
    case tokens
    case trigger
    case truth
    case visionWeights = "vision-weights"
    case watchRules = "watch-rules"

    /// The flag: `--NAME`.
    public var description: String { "--" + rawValue }
    /// The rules file's key (`settings:` map) and the name `lookd check` shows: `NAME`.
    public var key: String { rawValue }
}
