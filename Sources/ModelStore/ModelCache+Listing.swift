import Foundation
import LookCore
import VLM

extension ModelCache {
    /// `lookd models`' last line: which weights the vision tower runs on this CPU, and why.
    public var towerLine: String {
        let choice = TowerChoice.current(cache: self)
        return "Vision tower on this CPU: \(choice.weights) (\(choice.reason); \(SettingName.visionWeights) overrides it)"
    }

    /// `lookd models`: one line a catalog model, whether it is in this cache (its size and folder)
    /// or not (its repo), the default marked.
    public func catalogLines() -> [String] {
        let width = ModelCatalog.models.map(\.id.count).max() ?? 10
        let choice = TowerChoice.current(cache: self).choice
        return ModelCatalog.models.map { m in
            let id = m.id.padding(toLength: width, withPad: " ", startingAt: 0)
            let mark = m.id == ModelCatalog.defaultID ? " (default)" : ""
            guard let present = present(m.id) else {
                return "  \(id)  \(m.shipped ? "in lookd's repository, copied in on first use" : "not pulled  \(m.repo)")\(mark)"
            }
            let size = Quantity.bytes(Int64(present.model.size + present.mmproj.size))
            let tower: String
            switch VisionCopies(cache: self).state(of: paths(present).mmproj, choice: choice) {
            case .asPublished: tower = choice == .f16 ? "f16 tower (the faster on this CPU)" : "tower as published"
            case .copy: tower = "q8_0 tower made"
            case .toMake: tower = "q8_0 tower made on first load"
            }
            return "  \(id)  present, \(size), \(tower)  \(folder(m.id))\(mark)"
        }
    }
}
