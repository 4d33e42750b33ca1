import Foundation
import TestSupport
import XCTest

/// `lookd models inspect` as a user runs it: the verdict for each fixture pair, the 4.6 pair, the
/// variants converters publish, and a pair that cannot run.
final class ModelsInspectTests: XCTestCase {
    private func inspect(_ arguments: [String]) throws -> Subprocess {
        try Subprocess.run(Fixtures.lookd, ["models", "inspect"] + arguments)
    }

    func testVerdictsForEachFixturePair() throws {
        let cases: [(String, String, String)] = [
            (Fixtures.model, Fixtures.mmproj, "Verdict: runs natively"),
            (
                Fixtures.model47, Fixtures.mmproj47,
                "Verdict: runs as MiniCPM-V 4.7 (canvas positions; time slot from the file: qwen35.rope.mrope_time_slot = 3)"
            ),
            (
                Fixtures.variant47("nokey"), Fixtures.mmproj47,
                "Verdict: runs as MiniCPM-V 4.7 (canvas positions; time slot supplied by lookd: the language model names no time slot)"
            ),
            (
                Fixtures.variant47("zyxt"), Fixtures.mmproj47,
                "Verdict: runs as MiniCPM-V 4.7 (canvas positions; time slot from the file: qwen35.rope.section_order = zyxt)"
            ),
            (
                Fixtures.model47, Fixtures.variant47("mmproj-sep"),
                "Verdict: runs as MiniCPM-V 4.7 (canvas positions; time slot from the file: qwen35.rope.mrope_time_slot = 3)"
            ),
        ]
        for (model, mmproj, verdict) in cases {
            let r = try inspect([model, mmproj])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stdout.split(separator: "\n").last.map(String.init), verdict, r.stdout)
            XCTAssertTrue(r.stdout.contains("Language model  \(model)"), r.stdout)
            XCTAssertTrue(r.stdout.contains("chat template"), r.stdout)
        }
    }

    func testAPairThatCannotRunSaysWhyAndExitsSix() throws {
        let r = try inspect([Fixtures.variant47("badorder"), Fixtures.mmproj47])
        XCTAssertEqual(r.status, 6, r.stderr)
        XCTAssertTrue(r.stdout.contains("Verdict: cannot run: "), r.stdout)
        XCTAssertTrue(r.stdout.contains("qwen35.rope.section_order = \"txyz\""), r.stdout)
        // A pair whose widths differ, which ask refuses: inspect says so too.
        let models = Fixtures.root.appendingPathComponent("Tests/Fixtures/models")
        let wide = try inspect([
            models.appendingPathComponent("tiny-minicpmv-wide-Q8_0.gguf").path, models.appendingPathComponent("tiny-minicpmv-mmproj-Q8_0.gguf").path,
        ])
        XCTAssertEqual(wide.status, 6, wide.stderr)
        XCTAssertTrue(wide.stdout.contains("gives pictures 64 wide, and the language model takes 128"), wide.stdout)
    }

    func testBadInputIsRefusedInASentence() throws {
        let notGGUF = try Fixtures.scratch().appendingPathComponent("x.gguf")
        try Data("hello".utf8).write(to: notGGUF)
        let r = try inspect([notGGUF.path, Fixtures.mmproj])
        XCTAssertEqual(r.status, 6)
        XCTAssertTrue(r.stderr.contains("is not a GGUF file"), r.stderr)
        let folder = try inspect([Fixtures.scratch().path, Fixtures.mmproj])
        XCTAssertEqual(folder.status, 6)
        XCTAssertTrue(folder.stderr.contains("is a folder, a device or a pipe, not a GGUF file"), folder.stderr)
        let device = try inspect(["/dev/zero", Fixtures.mmproj])
        XCTAssertTrue(device.stderr.contains("/dev/zero is a folder, a device or a pipe"), device.stderr)
        let none = try inspect([])
        XCTAssertEqual(none.status, 2)
        let unknown = try inspect(["no-such-model"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("neither a .gguf file nor a catalog id"), unknown.stderr)
    }
}

/// lookd's own shapes-tiny, inspected as a user would: the mmproj beside it found by its name, and
/// its size in the unit that fits it.
final class ShapesTinyInspectTests: XCTestCase {
    func testShapesTinyIsReadRight() throws {
        let model = Fixtures.root.appendingPathComponent("models/shapes-tiny/shapes-tiny-Q8_0.gguf").path
        let r = try Subprocess.run(Fixtures.lookd, ["models", "inspect", model])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("Vision projector  \(Fixtures.root.path)/models/shapes-tiny/shapes-tiny-mmproj-F16.gguf"), r.stdout)
        XCTAssertFalse(r.stdout.contains("0.00 B parameters"), r.stdout)
        XCTAssertNotNil(r.stdout.firstMatch(of: /size +[0-9.]+ M parameters in 71 tensors/), r.stdout)
    }
}
