import Foundation
import TestSupport
import XCTest

/// `lookd ask` run as a subprocess, on photos made by ffmpeg, with the tiny fixture models.
final class AskCommandTests: XCTestCase {
    private var dir: URL!
    private var photo: String!

    override func setUpWithError() throws {
        dir = try Fixtures.scratch()
        photo = dir.appendingPathComponent("photo.jpg").path
        try TestMedia.photo(photo, width: 640, height: 480)
    }

    private func ask(_ arguments: [String], onStart: ((Process) -> Void)? = nil) throws -> Subprocess {
        try Subprocess.run(Fixtures.lookd, ["ask"] + arguments, environment: ["GGML_NO_BACKTRACE": "1"], onStart: onStart)
    }

    private var model: [String] { ["--model", Fixtures.model, "--mmproj", Fixtures.mmproj] }

    private func record(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func testAnswersAndPrintsTheNumbersLine() throws {
        let json = dir.appendingPathComponent("ask.json").path
        let r = try ask([photo, "  What is this?  ", "--tokens", "20", "--json", json] + model)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
        let lines = r.stderr.split(separator: "\n").map(String.init)
        let numbers = try XCTUnwrap(lines.first { $0.hasPrefix("first token ") }, r.stderr)
        XCTAssertNotNil(numbers.range(of: #"^first token \d+\.\d\d s( · \d+\.\d tok/s)?$"#, options: .regularExpression), numbers)
        XCTAssertTrue(lines.contains("CPU · on-device"), r.stderr)

        let rec = try record(json)
        XCTAssertEqual(rec["question"] as? String, "What is this?", "the question as typed, trimmed")
        XCTAssertEqual(rec["photo"] as? String, photo)
        XCTAssertEqual(rec["photo_px"] as? [Int], [640, 480])
        XCTAssertEqual(rec["answer"] as? String, r.stdout.dropLast().description, "stdout is not a terminal: the text as written")
        XCTAssertEqual(rec["numbers_line"] as? String, numbers)
        let output = try XCTUnwrap(rec["output_tokens"] as? Int)
        XCTAssertTrue((1...20).contains(output))
        XCTAssertGreaterThan(try XCTUnwrap(rec["input_tokens"] as? Int), 64)
        let first = try XCTUnwrap(rec["first_token_s"] as? Double)
        XCTAssertLessThanOrEqual(first, try XCTUnwrap(rec["generate_s"] as? Double))
        XCTAssertNotNil(rec["answer_shown"] as? String)
        XCTAssertNotNil(rec["engine_ready_s"] as? Double)
    }

    func testAFollowUpQuestionReusesThePhotosEncodingUnlessToldToEncodeAgain() throws {
        let json = dir.appendingPathComponent("ask.json").path
        let r = try ask(
            [
                photo, "Is there a chessboard?", "--then", "Detect a chessboard in the picture and output its bounding box.",
                "--tokens", "6", "--json", json,
            ] + model)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr.components(separatedBy: "CPU · on-device").count, 3, "numbers lines for each answer")
        let rec = try record(json)
        XCTAssertGreaterThan(rec["image_encode_s"] as? Double ?? 0, 0)
        let then = try XCTUnwrap(rec["then"] as? [String: Any])
        XCTAssertEqual(then["question"] as? String, "Detect a chessboard in the picture and output its bounding box.")
        XCTAssertEqual(then["image_encode_s"] as? Double, 0, "the photo was not encoded again")
        XCTAssertEqual(r.stdout, "\(rec["answer"] as! String)\n\n\(then["answer"] as! String)\n")

        let again = try ask(
            [photo, "Is there a chessboard?", "--then", "Detect a chessboard.", "--encode-again", "--tokens", "6", "--json", json] + model)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertGreaterThan((try record(json)["then"] as? [String: Any])?["image_encode_s"] as? Double ?? 0, 0)
    }

    func testAPhotoWithAnEXIFOrientationReachesTheModelUpright() throws {
        let turned = dir.appendingPathComponent("turned.jpg").path
        try TestMedia.photo(turned, width: 300, height: 200)
        try TestMedia.addEXIFOrientation(6, toJPEG: turned)
        let json = dir.appendingPathComponent("turned.json").path
        let r = try ask([turned, "Which way up?", "--tokens", "4", "--json", json] + model)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try record(json)["photo_px"] as? [Int], [200, 300])
    }

    func testAPhotoOver4096IsReduced() throws {
        let big = dir.appendingPathComponent("big.png").path
        try TestMedia.photo(big, width: 4800, height: 1200)
        let json = dir.appendingPathComponent("big.json").path
        let r = try ask([big, "What is this?", "--tokens", "4", "--json", json] + model)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try record(json)["photo_px"] as? [Int], [4096, 1024])
    }

    func testTheSeedsErrorsEachWithItsOwnExitCode() throws {
        let corrupt = dir.appendingPathComponent("corrupt.jpg").path
        try Data(try Data(contentsOf: URL(fileURLWithPath: photo)).prefix(30)).write(to: URL(fileURLWithPath: corrupt))

        let noPhoto = try ask([])
        XCTAssertEqual(noPhoto.status, 3)
        XCTAssertTrue(noPhoto.stderr.contains("Choose a photo first"), noPhoto.stderr)

        let missing = try ask([dir.appendingPathComponent("gone.jpg").path, "What?"] + model)
        XCTAssertEqual(missing.status, 3)
        XCTAssertTrue(missing.stderr.contains("Choose a photo first"), missing.stderr)

        let noQuestion = try ask([photo, "   "] + model)
        XCTAssertEqual(noQuestion.status, 4)
        XCTAssertTrue(noQuestion.stderr.contains("Type a question"), noQuestion.stderr)

        let unreadable = try ask([corrupt, "What?"] + model)
        XCTAssertEqual(unreadable.status, 5)
        XCTAssertTrue(unreadable.stderr.contains("Could not read that photo"), unreadable.stderr)

        let noModel = try ask([photo, "What?", "--model", "/nonexistent/lm.gguf", "--mmproj", Fixtures.mmproj])
        XCTAssertEqual(noModel.status, 6)
        XCTAssertTrue(noModel.stderr.contains("FAILED: The language model file /nonexistent/lm.gguf does not exist"), noModel.stderr)

        let badFlag = try ask([photo, "What?", "--colour"])
        XCTAssertEqual(badFlag.status, 2)
        XCTAssertTrue(badFlag.stderr.contains("unknown option --colour"), badFlag.stderr)

        let badTokens = try ask([photo, "What?", "--tokens", "many"] + model)
        XCTAssertEqual(badTokens.status, 2)
        for r in [noPhoto, missing, noQuestion, unreadable, noModel] { XCTAssertEqual(r.stdout, "") }
    }

    func testCtrlCWhileAnsweringPrintsStoppedWithTheAnswerSoFar() throws {
        // The tiny model writes about 3,000 tokens for this photo and question before it ends (over a
        // second here); the interrupt comes as soon as the first text is out.
        let json = dir.appendingPathComponent("stopped.json").path
        let out = dir.appendingPathComponent("out.txt")
        let r = try Subprocess.run(
            "/bin/sh",
            [
                "-c",
                "exec '\(Fixtures.lookd)' ask '\(photo!)' 'What is this?' --tokens 8192 --context 8192 --json '\(json)' --model '\(Fixtures.model)' --mmproj '\(Fixtures.mmproj)' > '\(out.path)'",
            ],
            environment: ["GGML_NO_BACKTRACE": "1"]
        ) { process in
            Poll.until(within: 60, every: 0.002) { ((try? FileManager.default.attributesOfItem(atPath: out.path)[.size]) as? Int ?? 0) > 0 }
            kill(process.processIdentifier, SIGINT)
        }
        XCTAssertEqual(r.status, 130, r.stderr)
        XCTAssertTrue(r.stderr.contains("STOPPED"), r.stderr)
        let rec = try record(json)
        XCTAssertEqual(rec["stop"] as? String, "stopped")
        let soFar = try String(contentsOf: out, encoding: .utf8)
        XCTAssertFalse(soFar.isEmpty)
        XCTAssertEqual(rec["answer"] as? String, String(soFar.dropLast()))
        XCTAssertLessThan(try XCTUnwrap(rec["output_tokens"] as? Int), 8192)
    }

    func testHelpListsTheExitCodes() throws {
        let r = try Subprocess.run(Fixtures.lookd, ["ask", "--help"])
        XCTAssertEqual(r.status, 0)
        for code in ["130", "Choose", "--mmproj", "--json"] where code != "Choose" {
            XCTAssertTrue(r.stdout.contains(code), code)
        }
        XCTAssertTrue(r.stdout.contains("3    no photo"))
    }
}
