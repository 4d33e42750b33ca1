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

    public init(dir: String, keep: Retention) {
        self.dir = dir
        self.keep = keep
    }

    /// Writes the snapshot of fire `number`; its path, or nil when it could not be written (said once
    /// per outage).
    public func save(_ image: RGBImage, fire number: Int, epoch: Int, now: Date) -> String? {
        // A name no other run has taken (two runs started in one second share a snapshots folder).
        let path: String
        do throws(SafeFile.Failure) {
            path = try SafeFile.claim(in: dir, stem: "fire-\(epoch)-\(String(format: "%05d", number))", ext: "jpg")
        } catch {
            if outage.failed(error.reason) { Log.shared.warning("A snapshot in \(dir) could not be written: \(error.reason).") }
            return nil
        }
        do throws(PNGWriter.Failure) {
            try JPEGWriter.write(image, to: path)
            if let lost = outage.succeeded() { Log.shared.notice("Snapshots are written to \(dir) again; \(lost) were not.") }
            prune(now: now, sparing: path)
            return path
        } catch {
            unlink(path)
            if outage.failed(error.reason) { Log.shared.warning("The snapshot \(path) could not be written: \(error.reason).") }
            return nil
        }
    }

    /// Removes the oldest snapshots past the count, or those past the age; never `sparing` (the
    /// snapshot just taken, whatever its file's time says).
    public func prune(now: Date, sparing: String? = nil) {
        let fm = FileManager.default
        let files = ((try? fm.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasPrefix("fire-") && $0.hasSuffix(".jpg") }
        let dated = files.compactMap { name -> (String, Date)? in
            let path = (dir as NSString).appendingPathComponent(name)
            return ((try? fm.attributesOfItem(atPath: path))?[.modificationDate] as? Date).map { (path, $0) }
        }
        .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }
        let doomed: [(String, Date)]
        switch keep {
        case .count(let n): doomed = Array(dated.dropLast(n))
        case .age(let seconds): doomed = dated.filter { now.timeIntervalSince($0.1) > seconds }
        }
        for (path, _) in doomed where path != sparing { try? fm.removeItem(atPath: path) }
    }
}
