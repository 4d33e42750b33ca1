import Platform
import XCTest

/// A path's folder, for every shape of path a user types (Swift 6.3's NSString traps on some).
final class FilePathTests: XCTestCase {
    func testTheFolderOfEveryShapeOfPath() {
        let cases = [
            "r": "", "events.jsonl": "", "r/": "", "": "", "/": "/", "/r": "/", "//r": "/", "a/b": "a", "a/b/": "a", "a//b": "a",
            "./r": ".", "../r/x.jsonl": "../r", "/var/lib/lookd/x": "/var/lib/lookd",
        ]
        for (path, folder) in cases { XCTAssertEqual(FilePath.folder(of: path), folder, path) }
    }
}
