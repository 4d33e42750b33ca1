import VLM
import XCTest

final class UTF8AssemblerTests: XCTestCase {
    private let text = "Grüße — 東京 🚲🏽 ok"

    func testEverySplitGivesWholeCharactersOnly() {
        let bytes = Array(text.utf8)
        for cut1 in 0...bytes.count {
            for cut2 in cut1...bytes.count {
                var assembler = UTF8Assembler()
                let pieces = [
                    assembler.push(Array(bytes[0..<cut1])), assembler.push(Array(bytes[cut1..<cut2])),
                    assembler.push(Array(bytes[cut2...])), assembler.finish(),
                ]
                XCTAssertEqual(pieces.joined(), text)
                for piece in pieces { XCTAssertFalse(piece.contains("\u{FFFD}"), "split at \(cut1), \(cut2)") }
            }
        }
    }

    func testByteByByte() {
        var assembler = UTF8Assembler()
        var out = ""
        for b in text.utf8 { out += assembler.push([b]) }
        XCTAssertEqual(out + assembler.finish(), text)
    }

    func testInvalidBytesBecomeReplacementCharactersInsteadOfWaitingForever() {
        var assembler = UTF8Assembler()
        XCTAssertEqual(assembler.push([0x80]), "\u{FFFD}") // a lone continuation byte
        XCTAssertEqual(assembler.push([0x61]), "a")
        XCTAssertEqual(assembler.push([0xE6, 0x9D]), "") // waits for the third byte…
        XCTAssertEqual(assembler.finish(), "\u{FFFD}") // …which never comes
        XCTAssertEqual(assembler.push([0xFF, 0x62]), "\u{FFFD}b")
    }
}
