import Foundation
import LookCore
import Platform
import TestSupport
import XCTest

/// The hardening round's LookCore classes: no write through another user's link, names no other
/// run takes, private folders, bounded reads, numbers from input that never trap, secrets masked.
final class HardeningTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    private func text(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

    /// A link another user made (in /tmp, say) is refused, whatever it points at; the target is untouched.
    func testAnotherUsersLinkIsNeverWrittenThrough() throws {
        try "victim\n".write(toFile: path("victim"), atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: path("status.json"), withDestinationPath: path("victim"))
        XCTAssertEqual(lchown(path("status.json"), 1001, 1001), 0, "the tests run as root and give the link away")
        XCTAssertThrowsError(try SafeFile.write("status\n", to: path("status.json"))) { error in
            XCTAssertTrue("\(error)".contains("owned by another user"), "\(error)")
        }
        XCTAssertThrowsError(try SafeFile.openForAppend(path("status.json")))
        XCTAssertEqual(text(path("victim")), "victim\n")
        // A chain: our link to another user's link is refused too.
        try FileManager.default.createSymbolicLink(atPath: path("mine"), withDestinationPath: path("status.json"))
        XCTAssertThrowsError(try SafeFile.write("x\n", to: path("mine")))
        XCTAssertEqual(text(path("victim")), "victim\n")
    }

    /// The user's own link (and root's, as /dev/stdout is) is still written through.
    func testOwnLinksAreWrittenThrough() throws {
        try FileManager.default.createSymbolicLink(atPath: path("log"), withDestinationPath: path("real.jsonl"))
        let fd = try SafeFile.openForAppend(path("log"))
        XCTAssertEqual(FileOutput.write(fd, "line\n").error, nil)
        close(fd)
        XCTAssertEqual(text(path("real.jsonl")), "line\n")
        XCTAssertNoThrow(try SafeFile.check("/dev/stdout"))
    }

    func testClaimedNamesAreNeverShared() throws {
        let first = try SafeFile.claim(in: dir.path, stem: "watch-run-100", ext: "json")
        let second = try SafeFile.claim(in: dir.path, stem: "watch-run-100", ext: "json")
        XCTAssertEqual((first as NSString).lastPathComponent, "watch-run-100.json")
        XCTAssertEqual((second as NSString).lastPathComponent, "watch-run-100-2.json")
        // A link at the name is never taken as a claim.
        try FileManager.default.createSymbolicLink(atPath: path("fire-1.jpg"), withDestinationPath: path("elsewhere"))
        XCTAssertEqual((try SafeFile.claim(in: dir.path, stem: "fire-1", ext: "jpg") as NSString).lastPathComponent, "fire-1-2.jpg")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("elsewhere")))
    }

    func testAPrivateFolderIsMadeOrRefused() throws {
        XCTAssertNil(PrivateFolder.problem(path("own")))
        let mode = try FileManager.default.attributesOfItem(atPath: path("own"))[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o700)
        XCTAssertNil(PrivateFolder.problem(path("own")), "made before: still fine")
        mkdir(path("theirs"), 0o700)
        chown(path("theirs"), 1001, 1001)
        XCTAssertNotNil(PrivateFolder.problem(path("theirs")), "another user's folder")
        try FileManager.default.createSymbolicLink(atPath: path("linked"), withDestinationPath: path("own"))
        XCTAssertNotNil(PrivateFolder.problem(path("linked")), "a link, even to our own folder")
        mkdir(path("open"), 0o777)
        chmod(path("open"), 0o777)
        XCTAssertNotNil(PrivateFolder.problem(path("open")), "a folder others may write")
    }

    func testBoundedReadsStopAtTheLimit() throws {
        try String(repeating: "x", count: 5000).write(toFile: path("big"), atomically: false, encoding: .utf8)
        XCTAssertEqual(BoundedRead.read(path("big"), limit: 4096), .tooLarge(4097))
        XCTAssertEqual(BoundedRead.read(path("big"), limit: 5000), .bytes(Data(repeating: UInt8(ascii: "x"), count: 5000)))
        guard case .missing = BoundedRead.read(path("none"), limit: 10) else { return XCTFail("a missing file") }
        guard case .missing = BoundedRead.read(dir.path, limit: 10) else { return XCTFail("a folder") }
    }

    func testNumbersFromInputNeverTrap() {
        for (x, want) in [(1e300, Int.max), (-1e300, Int.min), (.infinity, Int.max), (-.infinity, Int.min), (.nan, 0), (2.9, 2), (-7, -7)] {
            XCTAssertEqual(Int(saturating: x), want, "\(x)")
        }
        XCTAssertEqual(Int.max.incrementedSaturating, Int.max)
        XCTAssertEqual(41.incrementedSaturating, 42)
        XCTAssertEqual(1e300.plainText, "1e+300")
        XCTAssertEqual(Double.infinity.plainText, "inf")
        XCTAssertEqual(3.0.plainText, "3")
        XCTAssertEqual(2.5.plainText, "2.5")
    }

    /// A camera's URL, a webhook's token in its path or query: masked in every form they are written.
    func testSecretsInURLsAreMaskedWhereverTheyAreWritten() {
        let cases = [
            ("rtsp://admin:pw@cam.local:554/stream1", "rtsp://admin:***@cam.local:554/stream1"),
            ("http://user:pass@host/x?token=abc&size=2", "http://user:***@host/x?token=***&size=2"),
            ("https://example.com/hook?key=k1", "https://example.com/hook?key=***"),
            ("https://fn.example.net/api/x?code=Zx9&name=a", "https://fn.example.net/api/x?code=***&name=a"),
            ("https://blob.example.net/c?sv=1&sig=AbC%2Bd", "https://blob.example.net/c?sv=1&sig=***"),
            ("https://hooks.example.com/services/T0001/B0002/Xy12Ab34Cd56Ef78Gh90Ij12", "https://hooks.example.com/services/T0001/B0002/***"),
        ]
        for (raw, want) in cases {
            XCTAssertEqual(Secrets.masked(url: raw), want)
            XCTAssertEqual(Secrets.maskedPasswords(in: "source \(raw) lost"), "source \(want) lost")
            XCTAssertFalse(JSON.object([("source", .string(raw))]).text().contains("pw@"), "JSON masks it")
        }
        let json = JSON.object([("source", .string("rtsp://admin:hunter2@cam/1"))]).text()
        XCTAssertFalse(json.contains("hunter2"), json)
        XCTAssertEqual(Secrets.masked(url: "https://example.com/a/b?x=1"), "https://example.com/a/b?x=1", "nothing secret: unchanged")
        let repo = "https://huggingface.co/openbmb/MiniCPM-V-4_7-1B-gguf/resolve/main/MiniCPM-V-4_7-1B-Q8_0.gguf"
        XCTAssertEqual(Secrets.masked(url: repo), repo, "a repo's name is no token")
        let lines = CollectedLines()
        let log = Log(threshold: .debug, journal: true, clearsLine: false) { lines.add($0) }
        log.error("the camera rtsp://admin:hunter2@cam/1 is lost")
        XCTAssertEqual(lines.all, ["<3>the camera rtsp://admin:***@cam/1 is lost\n"])
    }
}
