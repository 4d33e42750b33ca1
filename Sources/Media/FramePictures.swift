import Foundation
import LookCore
import Platform

/// `--frames DIR`: each frame the model answered as `frame-<n>.png`, the folder opened once and
/// written through its descriptor (a swap after cannot redirect a frame). A folder that cannot be
/// written (a full disk) is said once, and again when frames are written again.
public final class FramePictures {
    public let dir: String
    private var folder: Folder?
    private var outage = Outage()

    public init(dir: String) { self.dir = dir }

    /// The PNG's path; nil when it could not be written.
    public func write(_ image: RGBImage, index: Int) -> String? {
        let name = String(format: "frame-%05d.png", index)
        do throws(Folder.Failure) {
            if folder == nil { folder = try Folder(dir) }
            guard let folder else { return nil }
            let bytes: Data
            do { bytes = try PNGWriter.encode(image) } catch { throw Folder.Failure(path: folder.path(of: name), reason: error.reason) }
            try folder.replace(name, bytes: [UInt8](bytes))
            if let lost = outage.succeeded() { Log.shared.notice("Frames are written to \(dir) again; \(lost) were not written.") }
            return folder.path(of: name)
        } catch {
            if outage.failed(error.reason) { Log.shared.warning("\(error.description) Frames are not written until they can be.") }
            return nil
        }
    }
}
