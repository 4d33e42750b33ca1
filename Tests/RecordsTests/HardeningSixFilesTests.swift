import Foundation
import LookCore
import Platform
import TestSupport
import XCTest

@testable import Records

/// Hardening 6: nothing lookd writes or trusts goes through another user's hands. The tests run as
/// root; "another user" is `nobody`, whose files root could otherwise write or read.
final class HardeningSixFilesTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws {
        dir = try Fixtures.scratch()
        chmod(dir.path, 0o1777) // a shared sticky folder, as /tmp is
    }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    private func text(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

    /// A file of `nobody`'s, made first, with her mode.
    private func hers(_ name: String, _ content: String, mode: mode_t = 0o666) throws -> String {
        let p = path(name)
        try content.write(toFile: p, atomically: false, encoding: .utf8)
        XCTAssertEqual(chown(p, 65534, 65534), 0)
        chmod(p, mode)
        return p
    }

    func testAFileOfAnotherUsersIsNeitherReplacedNorAppendedTo() throws {
        let status = try hers("status.json", "hers\n")
        XCTAssertThrowsError(try SafeFile.write("{}\n", to: status)) { XCTAssertTrue("\($0)".contains("belongs to another user"), "\($0)") }
        XCTAssertEqual(text(status), "hers\n")
        let log = try hers("lookd-events.jsonl", "her line\n")
        XCTAssertThrowsError(try SafeFile.openForAppend(log)) { XCTAssertTrue("\($0)".contains("belongs to another user"), "\($0)") }
        XCTAssertEqual(text(log), "her line\n")
        // A file of lookd's own user is written as before, and keeps the mode its user gave it.
        try SafeFile.write("mine\n", to: path("own.json"))
        chmod(path("own.json"), 0o600)
        try SafeFile.write("again\n", to: path("own.json"))
        XCTAssertEqual(text(path("own.json")), "again\n")
    }

    func testACacheFileOfAnotherUsersOrALinkIsNotTrusted() throws {
        let forged = try hers("tower-choice.json", "[]")
        XCTAssertNil(RegularFile.readOwn(forged, limit: 1024))
        XCTAssertFalse(RegularFile.isOwn(forged))
        try FileManager.default.createSymbolicLink(atPath: path("copy.gguf"), withDestinationPath: "/dev/zero")
        XCTAssertFalse(RegularFile.isOwn(path("copy.gguf"), size: 100), "a link to /dev/zero is never hashed")
        try "x".write(toFile: path("own"), atomically: false, encoding: .utf8)
        XCTAssertEqual(RegularFile.readOwn(path("own"), limit: 16), Array("x".utf8))
        XCTAssertTrue(RegularFile.isOwn(path("own"), size: 1))
        XCTAssertFalse(RegularFile.isOwn(path("own"), size: 2))
    }

    /// `--state FILE` naming a file of the user's own that is not lookd's state: it is kept aside
    /// under a new name, never overwritten; one that turns up later is left alone by the writer.
    func testAStateFileThatIsNotLookdsIsKeptAsideNeverReplaced() throws {
        let state = path("settings.json")
        try #"{"theme": "dark", "volume": 7}"#.write(toFile: state, atomically: false, encoding: .utf8)
        let (kept, problem) = KeptState.load(state)
        XCTAssertEqual(kept, KeptState())
        XCTAssertTrue(problem?.contains("kept aside as \(state).not-lookd") == true, problem ?? "no problem said")
        XCTAssertEqual(text(state + ".not-lookd"), #"{"theme": "dark", "volume": 7}"#)
        XCTAssertFalse(FileManager.default.fileExists(atPath: state))
        // lookd's own state loads as before.
        try #"{"switched_off": ["a cat"], "counts": {"a dog": 2}, "paused": false}"#.write(toFile: state, atomically: false, encoding: .utf8)
        XCTAssertEqual(KeptState.load(state).0, KeptState(switchedOff: ["a cat"], counts: ["a dog": 2]))
        // Another program's file put there while the watch runs is not replaced by the writer.
        try "not json at all\n".write(toFile: state, atomically: false, encoding: .utf8)
        let writer = KeptStateWriter(path: state, initial: KeptState())
        writer.receive(.watching(WatchSnapshot(rows: [], rulesSource: "inline", paused: true)))
        XCTAssertEqual(text(state), "not json at all\n")
    }

    /// A state file of another user's, lookd's form or not, is not trusted (her switches could
    /// silence a rule), not set aside, and not written.
    func testAnotherUsersStateIsNotTrusted() throws {
        let state = try hers("state.json", "{\"switched_off\":[\"a fire\"],\"counts\":{\"a cat\":40},\"paused\":true}\n")
        let (loaded, problem) = KeptState.load(state)
        XCTAssertEqual(loaded.switchedOff, [])
        XCTAssertEqual(loaded.counts, [:])
        XCTAssertFalse(loaded.paused)
        XCTAssertTrue(problem?.contains("belongs to another user (nobody)") == true, problem ?? "")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["state.json"], "nothing set aside")
    }
}
