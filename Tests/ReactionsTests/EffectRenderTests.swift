import Capture
import LookCore
import Reactions
import TestSupport
import XCTest

/// Each edit drawn on a synthetic frame with a known box, checked by measuring the output pixels.
final class EffectRenderTests: XCTestCase {
    private let width = 200, height = 120
    private let box = Box(left: 400, top: 300, right: 600, bottom: 700)

    /// A frame whose red and green say where each pixel is (r = x, g = y), blue fixed.
    private func coordinates() -> RGBImage {
        var pixels: [UInt8] = []
        for y in 0..<height { for x in 0..<width { pixels += [UInt8(x), UInt8(y), 90] } }
        return RGBImage(width: width, height: height, pixels: pixels)!
    }

    private func rgb(_ p: (r: UInt8, g: UInt8, b: UInt8)) -> [UInt8] { [p.r, p.g, p.b] }
    private func saturation(_ p: (r: UInt8, g: UInt8, b: UInt8)) -> Int { Int(max(p.r, p.g, p.b)) - Int(min(p.r, p.g, p.b)) }
    private func brightness(_ p: (r: UInt8, g: UInt8, b: UInt8)) -> Int { Int(p.r) + Int(p.g) + Int(p.b) }

    func testSpotlightKeepsTheWidenedBoxLitAndTheOutsideDarkerAndGreyer() {
        let frame = RGBImage(width: width, height: height, fill: (200, 80, 40))
        let edit = EffectRenderer(effect: .spotlight, box: box, frame: frame).picture(at: 2.5)
        let inside = edit.pixel(x: 100, y: 60) // the box's middle
        XCTAssertEqual(Int(inside.r), 200, accuracy: 3)
        XCTAssertEqual(Int(inside.g), 80, accuracy: 3)
        for (x, y) in [(10, 10), (190, 110), (20, 60)] { // well outside the widened box and its soft edge
            let outside = edit.pixel(x: x, y: y)
            XCTAssertLessThan(brightness(outside), brightness(frame.pixel(x: x, y: y)) * 2 / 3, "darker at \(x),\(y)")
            XCTAssertLessThan(saturation(outside) * 4, saturation(frame.pixel(x: x, y: y)), "greyer at \(x),\(y)")
        }
        // The soft edge: just outside the widened box (x = 76) is between lit and dark.
        let edge = brightness(edit.pixel(x: 76, y: 60))
        XCTAssertTrue(edge < brightness(inside) && edge > brightness(edit.pixel(x: 10, y: 60)), "soft edge: \(edge)")
        // At the hold's start nothing is dimmed yet.
        XCTAssertEqual(
            brightness(EffectRenderer(effect: .spotlight, box: box, frame: frame).picture(at: 0).pixel(x: 10, y: 10)),
            brightness(frame.pixel(x: 10, y: 10)))
    }

    func testZoomShowsTheWindowAroundTheBoxStretchedOverThePicture() {
        let frame = coordinates()
        let (window, scale) = EffectGeometry.zoom(box: box, width: width, height: height)
        XCTAssertEqual(scale, 5.0 / 3, accuracy: 1e-9, "the box's height widened by half is 0.6 of the picture's")
        let edit = EffectRenderer(effect: .zoom, box: box, frame: frame).picture(at: 2.5)
        for (x, y) in [(50, 30), (100, 60), (150, 90)] {
            let p = edit.pixel(x: x, y: y)
            let sx = window.x + (Double(x) + 0.5) * window.width / Double(width) - 0.5
            let sy = window.y + (Double(y) + 0.5) * window.height / Double(height) - 0.5
            XCTAssertEqual(Double(p.r), sx, accuracy: 1.01, "column \(x) shows the window's")
            XCTAssertEqual(Double(p.g), sy, accuracy: 1.01, "row \(y) shows the window's")
        }
        // The box's middle stays in the middle; the zoom starts from the whole picture.
        XCTAssertEqual(Int(edit.pixel(x: 100, y: 60).r), 100, accuracy: 1)
        XCTAssertEqual(EffectRenderer(effect: .zoom, box: box, frame: frame).picture(at: 0).pixel(x: 30, y: 30).r, 30)
        let halfway = EffectRenderer(effect: .zoom, box: box, frame: frame).picture(at: 0.15).pixel(x: 30, y: 30).r
        XCTAssertTrue(halfway > 30 && Double(halfway) < window.x + 30 / scale + 1, "moving in: \(halfway)")
    }

    func testRippleSpreadsFromTheBoxsMiddleAndLeavesTheFrameTintedBlue() {
        let frame = RGBImage(width: width, height: height, fill: (128, 128, 128))
        let renderer = EffectRenderer(effect: .ripple, box: Box(left: 0, top: 0, right: 200, bottom: 200), frame: frame)
        XCTAssertEqual(rgb(renderer.picture(at: 0).pixel(x: 100, y: 60)), rgb(frame.pixel(x: 100, y: 60)))
        // 0.4 s in, the wave has passed the box's middle (20, 12) but not the far corner.
        let early = renderer.picture(at: 0.4)
        XCTAssertGreaterThan(early.pixel(x: 20, y: 12).b, early.pixel(x: 20, y: 12).r + 60, "tinted blue behind the wave")
        XCTAssertEqual(rgb(early.pixel(x: 190, y: 110)), rgb(frame.pixel(x: 190, y: 110)), "not reached yet")
        // 2.5 s in (the catch), the whole frame is tinted.
        let late = renderer.picture(at: 2.5)
        for (x, y) in [(20, 12), (100, 60), (190, 110)] {
            XCTAssertGreaterThan(late.pixel(x: x, y: y).b, late.pixel(x: x, y: y).r + 60, "tinted at \(x),\(y)")
        }
    }

    func testTheHeldFrameHasAThinBlueBorder() {
        let frame = RGBImage(width: width, height: height, fill: (0, 0, 0))
        let edit = EffectRenderer(effect: .zoom, box: nil, frame: frame).picture(at: 1)
        XCTAssertTrue(edit.pixel(x: 0, y: 0) == EffectRenderer.borderColour)
        XCTAssertTrue(edit.pixel(x: 100, y: height - 1) == EffectRenderer.borderColour)
        XCTAssertTrue(edit.pixel(x: 100, y: 60) == (0, 0, 0))
    }

    func testTheFilmIsTheStillAt2_5SAndAnAnimationOfTheWholeHold() throws {
        let dir = try Fixtures.scratch()
        let renderer = EffectRenderer(effect: .ripple, box: box, frame: coordinates())
        let png = dir.appendingPathComponent("catch1.png").path, apng = dir.appendingPathComponent("edit1.apng").path
        let out = try EffectFilm.render(renderer, hold: 3, png: png, apng: apng, clock: MonotonicClock())
        XCTAssertEqual(out.pictures, 30)
        XCTAssertEqual(try PhotoDecoder.decode(path: png), renderer.picture(at: 2.5), "the still, pixel for pixel")
        let probe = try Subprocess.shell(
            "ffprobe -v error -count_frames -select_streams v -show_entries stream=codec_name,nb_read_frames,width,height -of csv=p=0 '\(apng)'")
        XCTAssertEqual(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "apng,200,120,30")
        XCTAssertFalse(FileManager.default.fileExists(atPath: apng + ".part"))
    }

    func testAStillThatWasWrittenIsKeptWhenTheAnimationFailsAndTheReasonIsSaid() throws {
        let dir = try Fixtures.scratch()
        let png = dir.appendingPathComponent("catch1.png").path
        let apng = dir.appendingPathComponent("edit1.apng").path
        try FileManager.default.createDirectory(atPath: apng, withIntermediateDirectories: true)
        let film = EffectFilm.render(
            EffectRenderer(effect: .zoom, box: box, frame: coordinates()), hold: 0.3, png: png, apng: apng, clock: MonotonicClock())
        XCTAssertEqual(film.png, png, "the still is complete and recorded")
        XCTAssertTrue(FileManager.default.fileExists(atPath: png))
        XCTAssertNil(film.apng)
        XCTAssertEqual(film.error, "Could not write \(apng): it is a folder.")
        XCTAssertFalse(FileManager.default.fileExists(atPath: apng + ".part"), "no partial file is left")
    }
}
