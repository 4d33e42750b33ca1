import Config
import Grounding
import LookCore
import Records
import Rules

/// The place stage: where each fired rule's thing is, asked (`--cells box|ask`) on the whole frame
/// or read from the answer's line (`batch`).
struct PlaceStage {
    let parts: LoopParts

    func places(fired: [Int], afterYes: [String?], rules: [Rule], shown: ShownFrame, frame index: Int, config: WatchConfig) -> [Int: Place] {
        var places: [Int: Place] = [:]
        switch config.cells {
        case .none: break
        case .batch:
            let cells = CellParser.batch(afterYes: afterYes)
            for i in fired { places[i] = Place(rule: i, cell: cells[i]) }
        case .box, .ask:
            let asker = PlaceAsker(model: parts.model, form: config.cells, cellWords: config.cellWords, cancellation: parts.stop.cancellation)
            // A place question that fails leaves the fire without a place (an effect plays on the
            // whole frame): the rule's yes has been counted, so its reaction must still run.
            for i in fired where asker.wants(rules[i].reaction) {
                guard let image = shown.whole else { continue }
                do {
                    places[i] = try asker.ask(rule: i, condition: rules[i].condition, image: image)
                } catch {
                    Log.shared.error(WatchError.place(frame: index, reason: "\(error)").description)
                }
            }
        }
        return places
    }
}
