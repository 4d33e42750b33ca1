import Foundation
import TestSupport
import XCTest

/// The records' shape is a contract: the same scripted run gives an event log and a run record with
/// the same keys, run after run and release after release (values such as times differ). The keys
/// are compared with Tests/Fixtures/golden/record-keys.txt; LOOKD_UPDATE_GOLDEN=1 rewrites it after a
/// change to the records that is meant.
final class RecordKeysTests: XCTestCase {
    func testAFixedRunGivesTheRecordedKeys() throws {
        let dir = try Fixtures.scratch()
        let photos = try TestMedia.photoFolder(in: dir)
        let answers = [
            "1. Yes\\n2. Yes\\n3. Yes\\n4. Yes\\n5. Yes\\n6. Yes", "<box>100 100 500 600</box>",
            "1. No\\n2. No\\n3. No\\n4. No\\n5. No\\n6. No", "1. Yes\\n2. Maybe\\n3. No\\n4. No\\n5. No\\n6. No",
        ]
        let out = dir.appendingPathComponent("out").path
        let rules = "a test card=count|a bird=log|a cat=effect:ripple|a dog=say:hello|a cow=timer:1|a fox=chime"
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", photos, "--rules", rules, "--model", "script:" + (try Fixtures.script(answers, in: dir)),
                "--photo-seconds", "0", "--seconds", "1.5", "--hold", "0.2", "--cooldown", "0.3", "--no-sound", "--record", out,
                "--frames", dir.appendingPathComponent("frames").path, "--truth", "one:yes,no,no,no,no,no",
            ])
        XCTAssertEqual(r.status, 0, r.stderr)
        var lines: [String] = []
        var byEvent: [String: Set<String>] = [:]
        for line in try EventLogFile.read((out as NSString).appendingPathComponent("lookd-events.jsonl")) {
            byEvent[line["event"] as! String, default: []].formUnion(Self.paths(line))
        }
        for (event, keys) in byEvent.sorted(by: { $0.key < $1.key }) { lines += keys.sorted().map { "event \(event): \($0)" } }
        let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: out).first { $0.hasPrefix("watch-run-") })
        let record = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: (out as NSString).appendingPathComponent(name))))
        lines += Self.paths(record).sorted().map { "record: \($0)" }

        let golden = Fixtures.root.appendingPathComponent("Tests/Fixtures/golden/record-keys.txt")
        let text = lines.joined(separator: "\n") + "\n"
        if ProcessInfo.processInfo.environment["LOOKD_UPDATE_GOLDEN"] == "1" { try text.write(to: golden, atomically: true, encoding: .utf8) }
        let expected = try String(contentsOf: golden, encoding: .utf8)
        let missing = Set(expected.split(separator: "\n")).subtracting(text.split(separator: "\n"))
        let added = Set(text.split(separator: "\n")).subtracting(expected.split(separator: "\n"))
        XCTAssertEqual(missing, [], "keys the records lost")
        XCTAssertEqual(added, [], "keys the records gained")
        XCTAssertGreaterThan(byEvent["hold"]?.count ?? 0, 0, "the run held an effect")
        XCTAssertGreaterThan(byEvent["fire"]?.count ?? 0, 0, "the run fired")
    }

    /// Every key path in a JSON value: `a.b`, with `[]` for an array's items (all items' keys).
    static func paths(_ value: Any, prefix: String = "") -> Set<String> {
        var out: Set<String> = []
        if let object = value as? [String: Any] {
            for (key, child) in object {
                let path = prefix.isEmpty ? key : "\(prefix).\(key)"
                out.insert(path)
                // Tables keyed by a rule's words or a sound's name: their keys are data, not shape.
                if ["yes", "fires_by_rule", "fires_by_reaction", "fires_by_effect", "fires_by_sound", "boxes_named", "cells_named"].contains(key) {
                    continue
                }
                out.formUnion(paths(child, prefix: path))
            }
        } else if let array = value as? [Any] {
            for item in array { out.formUnion(paths(item, prefix: prefix + "[]")) }
        }
        return out
    }
}
