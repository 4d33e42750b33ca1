import Capture
import Config
import LookCore

/// The loop's stages, each with its own state, in the order a frame meets them.
struct WatchStages {
    let reload: ReloadStage
    let gate: GateStage
    let ask: AskStage
    let place: PlaceStage
    let record: RecordStage
    let fire: FireStage
    let describe: DescribeStage

    /// The stages of a watch of `source` with `config`; `epoch` names its snapshots and effects.
    init(parts: LoopParts, source: any FrameSource, config: WatchConfig, epoch: Int, reloads: ReloadRequest) {
        reload = ReloadStage(parts: parts, requests: reloads, config: config)
        gate = GateStage(config.gate)
        (ask, place, record) = (AskStage(parts: parts), PlaceStage(parts: parts), RecordStage())
        fire = FireStage(parts: parts, source: source, config: config, epoch: epoch)
        describe = DescribeStage(parts: parts)
    }
}
