import LookCore
import Reactions
import XCTest

/// The seed's geometry, exactly, on the seed's own boxes (1920 × 1080 video frames).
final class EffectGeometryTests: XCTestCase {
    func testZoomOnTheChurchIs2_16x() {
        // Take 6: "a church with a tall spire … <box>505 0 575 308</box> … Zoom to 2.16× on the box".
        let (window, scale) = EffectGeometry.zoom(box: Box(left: 505, top: 0, right: 575, bottom: 308), width: 1920, height: 1080)
        XCTAssertEqual(scale, 2.16, accuracy: 0.01)
        XCTAssertEqual(window.width / window.height, 1920.0 / 1080.0, accuracy: 1e-9, "the picture's shape")
        XCTAssertEqual(window.y, 0, accuracy: 1e-9, "moved in at the top edge")
        XCTAssertEqual(window.midX, (505 + 575) / 2 / 1000 * 1920, accuracy: 1e-6, "centred on the box across")
    }

    func testZoomIsKeptWithin1_2And2_5AndInsideTheFrame() {
        let tiny = EffectGeometry.zoom(box: Box(left: 990, top: 990, right: 1000, bottom: 1000), width: 1920, height: 1080)
        XCTAssertEqual(tiny.scale, 2.5)
        XCTAssertEqual(tiny.window.x + tiny.window.width, 1920, accuracy: 1e-9, "moved in at the right edge")
        XCTAssertEqual(tiny.window.y + tiny.window.height, 1080, accuracy: 1e-9)
        let huge = EffectGeometry.zoom(box: Box(left: 0, top: 0, right: 1000, bottom: 1000), width: 1920, height: 1080)
        XCTAssertEqual(huge.scale, 1.2)
        XCTAssertEqual(EffectGeometry.zoom(box: nil, width: 1920, height: 1080).scale, 2)
        XCTAssertEqual(EffectGeometry.zoom(box: nil, width: 1920, height: 1080).window, PixelRect(x: 480, y: 270, width: 960, height: 540))
    }

    func testZoomEasesOutOverSixTenthsOfASecond() {
        XCTAssertEqual(EffectGeometry.zoomProgress(seconds: 0), 0)
        XCTAssertEqual(EffectGeometry.zoomProgress(seconds: 0.3), 0.875, accuracy: 1e-12)
        XCTAssertEqual(EffectGeometry.zoomProgress(seconds: 0.6), 1)
        XCTAssertEqual(EffectGeometry.zoomProgress(seconds: 2.5), 1)
    }

    func testRippleStartsAtTheBoxMiddleWithItsWidth() {
        // "water rushing over rows of stones" <box>238 0 688 998</box>
        let r = EffectGeometry.ripple(box: Box(left: 238, top: 0, right: 688, bottom: 998), width: 1920, height: 1080)
        XCTAssertEqual(r.centerX, 0.463 * 1920, accuracy: 1e-6)
        XCTAssertEqual(r.centerY, 0.499 * 1080, accuracy: 1e-6)
        XCTAssertEqual(r.waveWidth, 0.3 * 0.45 * 1920, accuracy: 1e-6, "0.3 of the box's shorter side")
        let small = EffectGeometry.ripple(box: Box(left: 500, top: 500, right: 510, bottom: 510), width: 1920, height: 1080)
        XCTAssertEqual(small.waveWidth, 0.08 * 1080, accuracy: 1e-9, "at least 8 % of the picture's shorter side")
        let none = EffectGeometry.ripple(box: nil, width: 1920, height: 1080)
        XCTAssertEqual(none.centerX, 960)
        XCTAssertEqual(none.centerY, 540)
    }

    func testSpotlightWidensTheBoxByATenthBehindASoftEdge() {
        // "a road bridge crossing over the river" <box>588 0 1000 181</box>
        let s = EffectGeometry.spotlight(box: Box(left: 588, top: 0, right: 1000, bottom: 181), width: 1920, height: 1080)
        let w = 0.412 * 1920, h = 0.181 * 1080
        XCTAssertEqual(s.lit.x, 0.588 * 1920 - w / 10, accuracy: 1e-6)
        XCTAssertEqual(s.lit.y, 0, accuracy: 1e-9, "kept within the picture")
        XCTAssertEqual(s.lit.x + s.lit.width, 1920, accuracy: 1e-9)
        XCTAssertEqual(s.lit.height, h * 1.1, accuracy: 1e-6)
        XCTAssertEqual(s.blur, 0.06 * 1080, accuracy: 1e-9)
        XCTAssertEqual(EffectGeometry.spotlight(box: nil, width: 1920, height: 1080).lit, PixelRect(x: 320, y: 180, width: 1280, height: 720))
        XCTAssertEqual(EffectGeometry.spotlightExposure, 0.3299, accuracy: 1e-4)
    }
}
