import Foundation
import LookCore
import Platform

/// A snapshot of every fire (`--snapshots DIR`): the frame that fired as JPEG at the source's own size
/// (not the model's 448 px), named `fire-<run epoch>-<fire number>.jpg`, kept by count or by age
/// (`--keep-snapshots 1000` or `7d`); the oldest go first.
public final class Snapshots {
    /// How many, or how old, snapshots stay.
    public enum Retention: Equatable, Sendable {
        case count(Int)
        case age(Double)

        /// `500` (snapshots) or `30m`, `12h`, `7d`: an age of at least a minute (`1e-300d` would
        /// remove every snapshot as soon as it is written), and at most 100 years.
        public static func parse(_ text: String) -> Retention? {
            let t = text.trimmingCharacters(in: .whitespaces).lowercased()
            if let n = Int(t), n > 0 { return .count(n) }
            let units: [Character: Double] = ["m": 60, "h": 3600, "d": 86400]
            guard let unit = t.last.flatMap({ units[$0] }), let n = Double(t.dropLast()), n.isFinite, (60...3.2e9).contains(n * unit)
            else { return nil }
            return .age(n * unit)
        }
    }

    public let dir: String
    public let keep: Retention
    private var outage = Outage()
    /// The folder, opened at the first snapshot and written through its descriptor from then on: a
    /// folder swapped for a link afterwards cannot redirect a snapshot.
    private var folder: Folder?

    public init(dir: String, keep: Retention) {
        self.dir = dir
        self.keep = keep
    }

    /// Writes the snapshot of fire `number`; its path, or nil when it could not be written (said once
    /// per outage).
    public func save(_ image: RGBImage, fire number: Int, epoch: Int, now: Date) -> String? {
        do throws(Folder.Failure) {
            if folder == nil { folder = try Folder(dir) }
            guard let folder else { return nil }
            let bytes: Data
            do { bytes = try JPEGWriter.encode(image) } catch { throw Folder.Failure(path: dir, reason: error.reason) }
            // A name no other run has taken (two runs started in one second share a snapshots folder).
            let name = try folder.create(stem: "fire-\(epoch)-\(String(format: "%05d", number))", ext: "jpg", bytes: [UInt8](bytes))
            if let lost = outage.succeeded() { Log.shared.notice("Snapshots are written to \(dir) again; \(lost) were not.") }
            prune(now: now, sparing: name)
            return folder.path(of: name)
        } catch {
            if outage.failed(error.reason) { Log.shared.warning("A snapshot in \(dir) could not be written: \(error.reason).") }
            return nil
        }
    }

    /// Removes the oldest snapshots past the count, or those past the age; never the file named
    /// `sparing` (the snapshot just taken, whatever its file's time says).
    public func prune(now: Date, sparing: String? = nil) {
        guard let folder = folder ?? (try? Folder(dir)) else { return }
        let dated = folder.files().filter { $0.name.hasPrefix("fire-") && $0.name.hasSuffix(".jpg") }
            .sorted { $0.modified != $1.modified ? $0.modified < $1.modified : $0.name < $1.name }
        let doomed: [(name: String, modified: Date)]
        switch keep {
        case .count(let n): doomed = Array(dated.dropLast(n))
        case .age(let seconds): doomed = dated.filter { now.timeIntervalSince($0.modified) > seconds }
        }
        for file in doomed where file.name != sparing { folder.remove(file.name) }
    }
}
