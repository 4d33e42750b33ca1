import Foundation
import Platform

/// A file that a muxer writes by path, made in its folder's descriptor under a hidden name and put
/// in place under its own name at the end (`Folder`): a reader never finds half of one, and a
/// folder swapped for a link after it was opened cannot redirect it. Unplaced, it goes.
final class PartialFile {
    /// The file's own path, as it is shown.
    let path: String
    /// The path the muxer writes, through the folder's descriptor.
    let writingPath: String
    private let folder: Folder
    private let name: String
    private let partial: String
    private var placed = false

    init(_ path: String) throws(MediaError) {
        self.path = path
        do { folder = try Folder(folder: path) } catch { throw .failed(error.reason) }
        name = (path as NSString).lastPathComponent
        partial = folder.partialName(for: name)
        writingPath = folder.pathThroughDescriptor(of: partial)
    }

    deinit { if !placed { folder.remove(partial) } }

    /// How many bytes were written.
    var size: Int { folder.size(of: partial) ?? 0 }

    /// Puts it in place under its name.
    func place() throws(MediaError) {
        placed = true
        do { try folder.place(partial, as: name) } catch { throw .failed(error.reason) }
    }
}
