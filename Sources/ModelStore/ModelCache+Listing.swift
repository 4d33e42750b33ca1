import Foundation
import LookCore

extension ModelCache {
    /// `lookd models`: one line a catalog model, whether it is in this cache (its size and folder)
    /// or not (its repo), the default marked.
    public func catalogLines() -> [String] {
        let width = ModelCatalog.models.map(\.id.count).max() ?? 10
        return ModelCatalog.models.map { m in
            let id = m.id.padding(toLength: width, withPad: " ", startingAt: 0)
            let mark = m.id == ModelCatalog.defaultID ? " (default)" : ""
            guard let present = present(m.id) else { return "  \(id)  not pulled  \(m.repo)\(mark)" }
            let size = Quantity.bytes(Int64(present.model.size + present.mmproj.size))
            return "  \(id)  present, \(size)  \(folder(m.id))\(mark)"
        }
    }
}
