import Foundation
import TestSupport
import XCTest

/// Faults a long-running service meets: records at paths that are not regular files, a reader that
/// goes away, a file system that fills. lookd ends with an error line and a non-zero exit, never a
/// crash, and what it had written stays whole.
final class FaultTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private var tinyAsk: [String] {
        [
            "ask", Fixtures.root.appendingPathComponent("examples/testcard.jpg").path, "What is this?", "--tokens", "2",
            "--model", Fixtures.model, "--mmproj", Fixtures.mmproj,
        ]
    }

    private func ask(json: String) throws -> Subprocess {
        try Subprocess.run(Fixtures.lookd, tinyAsk + ["--json", json], environment: ["GGML_NO_BACKTRACE": "1"])
    }

    private func fileType(_ path: String) -> FileAttributeType? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
    }

    func testARecordIsWrittenThroughALinkAndNeverReplacesADeviceOrAFolder() throws {
        // A link: the file it points at gets the record; the link stays a link.
        try FileManager.default.createSymbolicLink(atPath: path("link.json"), withDestinationPath: "real.json")
        var r = try ask(json: path("link.json"))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(fileType(path("link.json")), .typeSymbolicLink)
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("real.json")))))

        // A device is written into, not replaced: /dev/null stays a device; /dev/full's ENOSPC is an error.
        r = try ask(json: "/dev/null")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(fileType("/dev/null"), .typeCharacterSpecial)
        r = try ask(json: "/dev/full")
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("/dev/full cannot be written: No space left on device"), r.stderr)
        XCTAssertEqual(fileType("/dev/full"), .typeCharacterSpecial)

        // A folder is refused.
        try FileManager.default.createDirectory(atPath: path("folder"), withIntermediateDirectories: true)
        r = try ask(json: path("folder"))
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot be written: it is a folder"), r.stderr)
    }

    func testAReaderThatGoesAwayEndsTheWatchWithItsRecords() throws {
        let photos = try TestMedia.photoFolder(in: dir)
        // Yes and no in turn with no cooldown: a fire line every other frame, so lookd keeps writing to
        // the pipe after its reader has gone.
        let script = try Fixtures.script(Array(repeating: ["1. Yes", "1. No"], count: 5_000).flatMap { $0 }, in: dir)
        let out = path("out")
        // Photos round and round: only the closed pipe ends this run.
        let command = [
            Fixtures.lookd, "watch", "--source", photos, "--rules", "'a card=log'", "--model", "script:" + script,
            "--photo-seconds", "0", "--cooldown", "0", "--record", out,
        ].joined(separator: " ")
        let r = try Subprocess.run("/bin/bash", ["-c", "\(command) 2>&1 | head -c 10; echo \"${PIPESTATUS[0]}\" > \(path("status"))"])
        XCTAssertEqual(r.status, 0)
        let status = try String(contentsOfFile: path("status"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(status, "1", "an error exit, not death by SIGPIPE (141)")
        let log = try EventLogFile.read((out as NSString).appendingPathComponent("lookd-events.jsonl"))
        XCTAssertEqual(log.last?["event"] as? String, "done")
        XCTAssertEqual(log.first { $0["event"] as? String == "stop" }?["reason"] as? String, "standard error closed (Broken pipe)")
        XCTAssertTrue(try FileManager.default.contentsOfDirectory(atPath: out).contains { $0.hasPrefix("watch-run-") })
    }

    func testAnAnswerCutOffFromItsReaderIsStillRecorded() throws {
        let json = path("ask.json")
        let command = (tinyAsk + ["--tokens", "40", "--json", json]).map { "'\($0)'" }.joined(separator: " ")
        let r = try Subprocess.run(
            "/bin/bash", ["-c", "'\(Fixtures.lookd)' \(command) 2>\(path("err")) | head -c 1 >/dev/null; echo \"${PIPESTATUS[0]}\""])
        XCTAssertEqual(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "1")
        let err = try String(contentsOfFile: path("err"), encoding: .utf8)
        XCTAssertTrue(err.contains("Standard output was closed while the answer was written (Broken pipe); the whole answer is in"), err)
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        XCTAssertNotNil(record["answer"] as? String)
    }

    func testAFullFileSystemLosesLinesWholeAndReportsOnce() throws {
        // `ulimit -f` is a file system that fills at 24 KiB for every file lookd writes: the event log
        // stops taking lines, frames stop being written, and at the end the run record cannot be written.
        // A photo whose frames as PNG are larger than the limit.
        let photos = path("photos")
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        try TestMedia.photo(photos + "/card.jpg", width: 640, height: 480)
        let script = try Fixtures.script(["1. Yes", "1. No"], in: dir)
        let out = path("out")
        let command = [
            Fixtures.lookd, "watch", "--source", photos, "--rules", "'a card=log'", "--model", "script:" + script,
            "--photo-seconds", "0", "--seconds", "3", "--no-sound", "--record", out, "--frames", path("frames"),
        ].joined(separator: " ")
        let r = try Subprocess.run("/bin/bash", ["-c", "ulimit -f 24; exec \(command)"])
        XCTAssertEqual(r.status, 1, "an error exit, not a crash: \(r.stderr)")
        let logPath = (out as NSString).appendingPathComponent("lookd-events.jsonl")
        let text = try String(contentsOfFile: logPath, encoding: .utf8)
        XCTAssertGreaterThan(text.count, 20_000, "the log filled up to its limit")
        XCTAssertTrue(text.hasSuffix("\n"), "no line is cut")
        XCTAssertNoThrow(try EventLogFile.read(logPath), "every line parses")
        // Reported when it starts failing, not once a line: a shorter line that still fits ends an
        // outage (said with the count lost), so a few outages are possible; hundreds of lines are lost.
        let lines = r.stderr.split(separator: "\n")
        let outages = lines.filter { $0.contains("The event log") && $0.contains("cannot be written: File too large") }.count
        XCTAssertTrue((1...3).contains(outages), r.stderr)
        XCTAssertTrue((outages - 1...outages).contains(lines.filter { $0.contains("can be written again") }.count), r.stderr)
        XCTAssertEqual(lines.filter { $0.contains("Frames are not written until they can be") }.count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("The run record \(out)/watch-run-"), r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot be written: File too large"), r.stderr)
    }

    func testLinesAFullDiskLostAreCountedInTheRunRecord() throws {
        // The event log on a 64 KB tmpfs that fills; the record folder elsewhere. Needs root (as CI runs).
        let small = path("small")
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        guard (try Subprocess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", small])).status == 0 else {
            return XCTFail("this test mounts a small tmpfs, which needs root")
        }
        defer { _ = try? Subprocess.run("/bin/umount", [small]) }
        let photos = try TestMedia.photoFolder(in: dir)
        let script = try Fixtures.script(["1. Yes", "1. No"], in: dir)
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", photos, "--rules", "a card=log", "--model", "script:" + script, "--photo-seconds", "0", "--seconds", "2",
                "--no-sound", "--record", path("out"), "--log", small + "/events.jsonl",
            ])
        XCTAssertEqual(r.status, 0, "a service goes on through a full disk: \(r.stderr)")
        let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: path("out")).first { $0.hasPrefix("watch-run-") })
        let record = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("out/\(name)")))) as? [String: Any])
        let summary = try XCTUnwrap(record["summary"] as? [String: Any])
        let lost = try XCTUnwrap(summary["log_lines_lost"] as? Int)
        let written = try EventLogFile.read(small + "/events.jsonl").count
        let frames = try XCTUnwrap(summary["frames"] as? Int)
        XCTAssertGreaterThan(lost, 0)
        XCTAssertGreaterThan(frames, written - 10, "more frames than lines fit: the lost ones are counted")
    }

    func testFoldersThatCannotTakeRecordsAreFoundBeforeTheRunAndNamed() throws {
        let photos = try TestMedia.photoFolder(in: dir)
        let script = try Fixtures.script(["1. No"], in: dir)
        try "a file".write(toFile: path("file"), atomically: true, encoding: .utf8)
        func watch(_ more: [String]) throws -> Subprocess {
            try Subprocess.run(
                Fixtures.lookd,
                [
                    "watch", "--source", photos, "--rules", "a card=log", "--model", "script:" + script, "--photo-seconds", "0", "--seconds", "0.3",
                    "--no-sound",
                ] + more)
        }
        var r = try watch(["--record", path("out"), "--frames", path("file")])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("The frames folder \(path("file")) cannot be used: it is a file, not a folder."), r.stderr)
        r = try watch(["--record", path("file/records")])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("The record folder \(path("file/records")) cannot be made"), r.stderr)
        XCTAssertFalse(r.stderr.contains("watching"), "refused before the watch began: \(r.stderr)")

        // A status file named relative to the current folder is written there.
        let status = Process()
        status.executableURL = URL(fileURLWithPath: Fixtures.lookd)
        status.arguments = [
            "watch", "--source", photos, "--rules", "a card=log", "--model", "script:" + script, "--photo-seconds", "0", "--seconds", "0.3",
            "--no-sound", "--record", "out", "--status", "status.json",
        ]
        status.currentDirectoryURL = dir
        status.standardError = FileHandle.nullDevice
        try status.run()
        status.waitUntilExit()
        XCTAssertEqual(status.terminationStatus, 0)
        let written = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("status.json")))) as? [String: Any]
        XCTAssertEqual(written?["state"] as? String, "stopped")
    }

    func testAPhotoPastFFmpegsLimitAndAFolderAreNamedAsSuch() throws {
        // A 20,000 × 20,000 PNG header: FFmpeg refuses such a picture; lookd says why, with its size.
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
        png += Data([0, 0, 0x4E, 0x20, 0, 0, 0x4E, 0x20, 8, 2, 0, 0, 0, 0, 0, 0, 0])
        try png.write(to: URL(fileURLWithPath: path("big.png")))
        var r = try Subprocess.run(Fixtures.lookd, tinyAsk.enumerated().map { $0.offset == 1 ? path("big.png") : $0.element })
        XCTAssertEqual(r.status, 5, r.stderr)
        XCTAssertTrue(r.stderr.contains("it is 20000 × 20000 pixels, more than FFmpeg decodes (about 268 million); reduce it first"), r.stderr)
        r = try Subprocess.run(Fixtures.lookd, tinyAsk.enumerated().map { $0.offset == 1 ? dir.path : $0.element })
        XCTAssertEqual(r.status, 5, r.stderr)
        XCTAssertTrue(r.stderr.contains("it is a folder, not a photo"), r.stderr)
    }
}
