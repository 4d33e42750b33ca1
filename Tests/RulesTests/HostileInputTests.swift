import Foundation
import TestSupport
import XCTest

@testable import Rules

/// Input that once crashed lookd: deep nesting, numbers past any clock.
final class HostileInputTests: XCTestCase {
    /// 40,000 nested lists: an error with its place, not a stack overflow in the tree's teardown.
    func testDeeplyNestedYAMLIsRefusedQuickly() {
        for depth in [65, 40_000, 300_000] {
            let text = "rules: " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "\n"
            let started = Date()
            XCTAssertThrowsError(try RulesFile.parse(text, source: "deep.yaml")) { error in
                XCTAssertTrue("\(error)".contains("nested more than 64 deep"), "\(error)")
            }
            XCTAssertLessThan(Date().timeIntervalSince(started), 10, "refused as soon as it is too deep")
        }
        XCTAssertNoThrow(try YAMLNode.parse("a: " + String(repeating: "[", count: 60) + String(repeating: "]", count: 60)))
    }

    /// Invisible characters that reverse or hide words are refused; look-alikes are one condition.
    func testInvisibleCharactersAndLookAlikes() throws {
        for (bad, name) in [("\u{202E}", "right-to-left override"), ("\u{200B}", "zero-width space"), ("\u{FEFF}", "zero-width no-break space")] {
            XCTAssertThrowsError(try RulesFile.parse("rules:\n  - when: a c\(bad)at\n    count: true\n", source: "r.yaml")) { error in
                XCTAssertTrue("\(error)".contains(name), "\(error)")
            }
        }
        let set = try RulesFile.parse("rules:\n  - when: a cat\n    count: true\n  - when: Ａ ＣＡＴ\n    log: true\n", source: "r.yaml")
        XCTAssertEqual(set.warnings.count, 1, "full-width letters make the same condition: \(set.warnings)")
    }

    func testAPostToAPortNoServerHasIsRefused() {
        XCTAssertThrowsError(try RulesFile.parse("rules:\n  - when: a cat\n    post: http://127.0.0.1:99999/x\n", source: "r.yaml")) { error in
            XCTAssertTrue("\(error)".contains("port"), "\(error)")
        }
    }

    func testTruthSpansPastAnyClockAreRefused() {
        XCTAssertNil(TruthFile.span("1e300-1e301"))
        XCTAssertNil(TruthFile.span("0-inf"))
        XCTAssertNotNil(TruthFile.span("5-6"))
        XCTAssertEqual(TruthFile.time(1e300), "8784:00:00", "formatting never traps: held to a year")
        XCTAssertEqual(TruthFile.time(.nan), "0:00")
    }
}
