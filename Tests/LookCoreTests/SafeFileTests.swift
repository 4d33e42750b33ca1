import Foundation
import LookCore
import Platform
import TestSupport
import XCTest

/// A record's path may hold anything; only a regular file (or nothing) is ever replaced.
final class SafeFileTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    private func text(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

    func testARegularFileIsReplacedWholeAndKeepsItsPermissions() throws {
        try SafeFile.write("old\n", to: path("r.json"))
        chmod(path("r.json"), 0o600)
        try SafeFile.write("new\n", to: path("r.json"))
        XCTAssertEqual(text(path("r.json")), "new\n")
        let mode = try FileManager.default.attributesOfItem(atPath: path("r.json"))[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["r.json"], "no temporary file is left")
    }

    func testALinkIsWrittenThroughEvenWhenItPointsAtNothingYet() throws {
        try FileManager.default.createSymbolicLink(atPath: path("link"), withDestinationPath: "target")
        try SafeFile.write("one\n", to: path("link"))
        XCTAssertEqual(text(path("target")), "one\n", "a link to nothing creates its target")
        try SafeFile.write("two\n", to: path("link"))
        XCTAssertEqual(text(path("target")), "two\n")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: path("link")), "target", "the link stays a link")
    }

    func testAPipeIsWrittenIntoAndAFolderIsRefused() throws {
        XCTAssertEqual(mkfifo(path("fifo"), 0o644), 0)
        let (fifo, got) = (path("fifo"), path("got"))
        let reader = Thread {
            let fd = open(fifo, O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: 64)
            let n = read(fd, &buffer, 64)
            try? Data(buffer.prefix(max(0, n))).write(to: URL(fileURLWithPath: got))
            close(fd)
        }
        reader.start()
        try SafeFile.write("through the pipe\n", to: path("fifo"))
        Poll.until(within: 1, every: 0.01) { text(path("got")) != nil }
        XCTAssertEqual(text(path("got")), "through the pipe\n")
        var st = stat()
        XCTAssertEqual(lstat(fifo, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFIFO, "the pipe is still a pipe")

        try FileManager.default.createDirectory(atPath: path("folder"), withIntermediateDirectories: true)
        XCTAssertThrowsError(try SafeFile.write("x", to: path("folder"))) { error in
            XCTAssertEqual((error as? SafeFile.Failure)?.description, "\(self.path("folder")) cannot be written: it is a folder")
        }
        XCTAssertThrowsError(try SafeFile.write("x", to: path("missing/r.json"))) { error in
            XCTAssertEqual((error as? SafeFile.Failure)?.reason, "No such file or directory")
        }
    }
}
