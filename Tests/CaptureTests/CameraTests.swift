import Foundation
import LookCore
import TestSupport
import XCTest

@testable import Capture

/// The camera's pure parts exactly; the device itself in the VM test (tools/vm-test), since these
/// machines have no camera and no vivid module.
final class CameraTests: XCTestCase {
    func testTheLargestSizeUpToTheLimitElseTheSmallest() {
        let sizes = [(320, 240), (640, 480), (1280, 720), (1920, 1080), (3840, 2160)]
        XCTAssertTrue(CameraFormat.choose(sizes: sizes, maxSide: 1280) == (1280, 720))
        XCTAssertTrue(CameraFormat.choose(sizes: sizes, maxSide: 1919) == (1280, 720))
        XCTAssertTrue(CameraFormat.choose(sizes: sizes, maxSide: 4096) == (3840, 2160))
        XCTAssertTrue(CameraFormat.choose(sizes: sizes, maxSide: 100) == (320, 240), "all too big: the smallest")
        XCTAssertTrue(CameraFormat.choose(sizes: [(480, 640), (720, 1280)], maxSide: 800) == (480, 640), "portrait cameras by their long side")
    }

    func testReopeningBacksOffFromHalfASecondToTenSeconds() {
        XCTAssertEqual((1...7).map { CameraFormat.backoff(try: $0) }, [0.5, 1, 2, 4, 8, 10, 10])
    }

    func testEachOpenErrorIsASentence() {
        XCTAssertEqual(
            CameraErrors.open("/dev/video0", errno: ENOENT).description,
            "No camera at /dev/video0: the device does not exist (is it plugged in? v4l2-ctl --list-devices lists the cameras).")
        XCTAssertEqual(
            CameraErrors.open("/dev/video0", errno: EACCES).description,
            "Camera access is off: add the service's user to the video group (/dev/video0: permission denied).")
        XCTAssertEqual(CameraErrors.open("/dev/video0", errno: EBUSY).description, "The camera /dev/video0 is busy: another program is using it.")
        XCTAssertEqual(CameraErrors.open("/dev/video2", errno: EIO).description, "The camera /dev/video2 failed: Input/output error.")
    }

    func testOpeningWhatIsNotACamera() throws {
        XCTAssertThrowsError(try CameraSource(device: "/dev/video-none-\(getpid())", clock: MonotonicClock())) { error in
            XCTAssertEqual(error as? CaptureError, .cameraMissing(device: "/dev/video-none-\(getpid())"))
        }
        XCTAssertThrowsError(try SourceOpener.open("/dev/null", clock: MonotonicClock())) { error in
            XCTAssertEqual(
                (error as? CaptureError)?.description, "The camera /dev/null failed: it is not a V4L2 device (Inappropriate ioctl for device).")
        }
    }
}
