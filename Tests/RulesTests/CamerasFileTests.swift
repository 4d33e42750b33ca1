import LookCore
import Rules
import XCTest

/// A rules file's `settings: cameras:` and a rule's `cameras:`: what is read, and every wrong way of
/// writing them refused at its line and column.
final class CamerasFileTests: XCTestCase {
    private func problem(_ text: String) -> RulesError? {
        do {
            _ = try RulesFile.parse(text, source: "rules.yaml")
            return nil
        } catch {
            return error
        }
    }

    func testCamerasAreReadWithTheirSourcesOwnSettingsAndLines() throws {
        let set = try RulesFile.parse(
            """
            settings:
              cooldown: 5
              cameras:
                door: /dev/video0
                yard:
                  source: rtsp://yard.local/stream
                  gate-threshold: 0.05
            rules:
              - when: a person
                say: someone is here
              - when: a car
                log: true
                cameras: yard
              - when: a cat
                log: true
                cameras: [door, yard]
            """, source: "rules.yaml")
        XCTAssertEqual(set.cameras.map(\.name), ["door", "yard"])
        XCTAssertEqual(set.cameras.map(\.source), ["/dev/video0", "rtsp://yard.local/stream"])
        XCTAssertEqual(set.cameras[1].settings["gate-threshold"], GivenSetting("0.05", from: .file("rules.yaml", line: 7)))
        XCTAssertEqual(set.cameras[0].line, 4)
        XCTAssertEqual(set.settings["cooldown"]?.text, "5", "the watch's other settings stay the watch's")
        XCTAssertNil(set.settings["cameras"])
        XCTAssertEqual(set.rules.map(\.settings.cameras), [nil, ["yard"], ["door", "yard"]])
        XCTAssertEqual(set.forCamera(CameraName("door")).rules.map(\.condition), ["a person", "a cat"])
        XCTAssertEqual(set.forCamera(CameraName("yard")).rules.map(\.condition), ["a person", "a car", "a cat"])
        XCTAssertEqual(set.forCamera(.only).rules.count, 3, "a watch of one source asks every rule")
        XCTAssertEqual(set.rules[1].settings.summary, "cameras yard")
    }

    func testEveryWrongCameraIsRefusedAtItsLineAndColumn() {
        let head = "rules:\n  - when: a cat\n    log: true\nsettings:\n  cameras:\n"
        let cases: [(String, Int, Int, String)] = [
            (head + "    door: /dev/video0\n    door: /dev/video1\n", 7, 5, "the camera door is named twice"),
            (head + "    door:\n", 6, 10, "the camera door has no source"),
            (head + "    door:\n      gate-threshold: 0.1\n", 7, 7, "the camera door has no source: (source: /dev/video0)"),
            (head + "    door:\n      source: /dev/video0\n      cooldown: 4\n", 8, 7, "\"cooldown\" is not a camera's own setting"),
            (head + "    front door: /dev/video0\n", 6, 5, "a camera's name is 1 to 32 letters, digits, - and _"),
            (head + "    12-x: /dev/video0\n", 6, 5, "a camera's name is 1 to 32 letters, digits, - and _, beginning with a letter"),
            (head + "    door: [/dev/video0]\n", 6, 11, "the camera door is a source, or a map with source:"),
            ("settings:\n  cameras: /dev/video0\nrules:\n  - when: a cat\n    log: true\n", 2, 12, "cameras: maps each camera's name"),
            (
                "settings:\n  cameras:\n    door: /dev/video0\nrules:\n  - when: a cat\n    log: true\n    cameras: [yard]\n", 5, 5,
                "the rule \"a cat\" names the camera \"yard\", and there is none of that name (the cameras: door)"
            ),
            ("rules:\n  - when: a cat\n    log: true\n    cameras: [door, \"the yard\"]\n", 4, 14, "cameras: \"the yard\": a camera's name is"),
        ]
        for (text, line, column, words) in cases {
            guard let error = problem(text) else {
                XCTFail("accepted:\n\(text)")
                continue
            }
            XCTAssertEqual(error.line, line, "\(error.description)\n\(text)")
            XCTAssertEqual(error.column, column, "\(error.description)\n\(text)")
            XCTAssertTrue(error.problem.contains(words), "\(error.problem) should say \(words)")
        }
    }

    func testACameraFlagIsNameEqualsSource() {
        XCTAssertEqual(try CameraEntry.flag("door=rtsp://x/y?a=b").get(), CameraEntry(name: "door", source: "rtsp://x/y?a=b"))
        for bad in ["door", "=/dev/video0", "door=", "front door=/dev/video0", String(repeating: "a", count: 33) + "=x"] {
            XCTAssertThrowsError(try CameraEntry.flag(bad).get(), bad)
        }
    }

    func testRulesNamingCamerasAreCheckedAgainstTheCamerasGivenByFlag() throws {
        let set = try RulesFile.parse(
            "rules:\n  - when: a cat\n    log: true\n    cameras: yard\n  - when: a dog\n    log: true\n", source: "rules.yaml")
        XCTAssertNoThrow(try set.checkCameras(["door", "yard"], source: "rules.yaml"))
        XCTAssertThrowsError(try set.checkCameras(["door"], source: "rules.yaml")) { error in
            XCTAssertEqual((error as? RulesError)?.line, 2)
        }
        // A camera that no rule is asked on is refused too.
        let yardOnly = try RulesFile.parse("rules:\n  - when: a cat\n    log: true\n    cameras: yard\n", source: "rules.yaml")
        XCTAssertThrowsError(try yardOnly.checkCameras(["door", "yard"], source: "rules.yaml")) { error in
            XCTAssertTrue((error as? RulesError)?.problem.contains("no rule is asked on the camera door") == true, "\(error)")
        }
    }
}
