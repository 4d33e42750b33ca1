import Foundation
import TestSupport
import XCTest

@testable import Capture

/// The camera's descriptor and each mapped buffer are objects of their own: a setup that fails at
/// any step closes and unmaps exactly what it had, once (before, a failure after the size was set
/// closed the descriptor twice: in a `defer` and in `deinit`). These machines have no V4L2 device,
/// so the steps are driven on files that take the same calls; a real vivid camera is tools/vm-test's.
final class CameraLifetimeTests: XCTestCase {
    func testADeviceThatIsNotACameraFailsAndLeavesNoDescriptor() throws {
        let paths = ["/dev/zero", "/dev/null", "/etc/hostname"]
        let descriptors = paths.map(OpenDescriptors.count(to:))
        let live = CameraDescriptor.live.value
        for path in paths {
            XCTAssertThrowsError(try CameraDevice(path: path, maxSide: 640)) { error in
                XCTAssertTrue("\(error)".contains("not a V4L2 device") || "\(error)".contains("failed"), "\(error)")
            }
        }
        XCTAssertEqual(paths.map(OpenDescriptors.count(to:)), descriptors, "no descriptor left open on any of them")
        XCTAssertEqual(CameraDescriptor.live.value, live)
    }

    func testADescriptorAndItsBuffersAreFreedOnceWhateverFailsAfterThem() throws {
        let descriptors = OpenDescriptors.count(to: "/dev/zero")
        let (fds, maps) = (CameraDescriptor.live.value, CameraBuffer.live.value)
        do {
            // /dev/zero maps like a driver's buffer; the third buffer's offset is refused, as a driver
            // refuses one: what was made before it goes, each once.
            let descriptor = CameraDescriptor(adopting: open("/dev/zero", O_RDWR | O_CLOEXEC))
            var buffers = [try CameraBuffer(descriptor, length: 4096, offset: 0, path: "/dev/zero")]
            buffers.append(try CameraBuffer(descriptor, length: 4096, offset: 4096, path: "/dev/zero"))
            XCTAssertEqual(CameraBuffer.live.value, maps + 2)
            XCTAssertThrowsError(try CameraBuffer(descriptor, length: 4096, offset: -4096, path: "/dev/zero"))
            XCTAssertEqual(CameraBuffer.live.value, maps + 2, "a failed map counts nothing")
            XCTAssertEqual(CameraDescriptor.live.value, fds + 1)
            XCTAssertEqual(OpenDescriptors.count(to: "/dev/zero"), descriptors + 1, "the descriptor is seen while it is open")
        }
        XCTAssertEqual(CameraBuffer.live.value, maps)
        XCTAssertEqual(CameraDescriptor.live.value, fds)
        // Counted on /dev/zero alone: the test process's other threads open and close descriptors too.
        XCTAssertEqual(OpenDescriptors.count(to: "/dev/zero"), descriptors, "closed: no descriptor left on /dev/zero")
    }
}
