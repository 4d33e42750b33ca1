import Foundation
import TestSupport
import XCTest

/// docs/tests.md's counts come from the tests: each row of its table gives as many tests as its
/// suites' folders declare (`func test…()`), every suite is in a row, and the total is theirs.
final class TestCountsTests: XCTestCase {
    private func declared(in suite: String) throws -> Int {
        let folder = Fixtures.root.appendingPathComponent("Tests/\(suite)")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }.reduce(0) { sum, name in
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            return sum + text.matches(of: /(?m)^\s*func test\w*\(\)/).count
        }
    }

    func testDocsTestsCountsAreTheTestsOwn() throws {
        let doc = try String(contentsOf: Fixtures.root.appendingPathComponent("docs/tests.md"), encoding: .utf8)
        let suites = try FileManager.default.contentsOfDirectory(atPath: Fixtures.root.appendingPathComponent("Tests").path).filter {
            $0.hasSuffix("Tests")
        }
        var named: Set<String> = []
        var total = 0
        for row in doc.matches(of: /(?m)^\| ((?:`\w+`(?:, )?)+) \| (\d+) \|/) {
            let rowSuites = String(row.1).matches(of: /`(\w+)`/).map { String($0.1) }
            let counted = try rowSuites.reduce(0) { $0 + (try declared(in: $1)) }
            XCTAssertEqual(Int(row.2), counted, "docs/tests.md's row for \(rowSuites.joined(separator: ", "))")
            named.formUnion(rowSuites)
            total += counted
        }
        XCTAssertEqual(named, Set(suites), "every suite has its row")
        let stated = try XCTUnwrap(doc.firstMatch(of: /\((\d+) tests;/), "the total in the opening paragraph")
        XCTAssertEqual(Int(stated.1), total, "the total")
    }
}
