import Foundation
import LookCore
import Outputs
import TestSupport
import XCTest

/// Several cameras tell systemd as one service: READY=1 once every camera is ready, the watchdog
/// only while every camera's loop is alive, and each camera's status with its name.
final class CameraNotifierTests: XCTestCase {
    func testReadyOnceEveryCameraIsAndTheWatchdogOnlyWhileEveryLoopIsAlive() {
        let (manager, quorum, clock) = (RecordingNotifier(watchdogInterval: 10), CameraNotifier.Quorum(), ManualClock())
        quorum.join("door")
        quorum.join("yard")
        let door = CameraNotifier(camera: "door", shared: manager, quorum: quorum, clock: clock)
        let yard = CameraNotifier(camera: "yard", shared: manager, quorum: quorum, clock: clock)
        door.ready(status: "watching /dev/video0")
        XCTAssertEqual(manager.messages, ["STATUS door: watching /dev/video0"], "not ready until the yard is")
        yard.ready(status: "watching /dev/video2")
        XCTAssertEqual(manager.messages.last, "READY yard: watching /dev/video2")
        door.status("frame 3")
        XCTAssertEqual(manager.messages.last, "STATUS door: frame 3")

        // Both loops alive: the watchdog is fed.
        door.watchdog()
        yard.watchdog()
        XCTAssertEqual(manager.messages.filter { $0 == "WATCHDOG" }.count, 1, "sent when the yard says it is alive too")
        // The yard's loop is stuck: the door's pings no longer feed systemd's watchdog.
        clock.advance(11)
        door.watchdog()
        door.watchdog()
        XCTAssertEqual(manager.messages.filter { $0 == "WATCHDOG" }.count, 1, "a stuck camera is caught though the door answers")
        // The yard is taken out by a reload: the door alone feeds it again.
        quorum.leave("yard")
        door.watchdog()
        XCTAssertEqual(manager.messages.filter { $0 == "WATCHDOG" }.count, 2)
        // A camera added later is not ready again: READY=1 was sent once.
        quorum.join("porch")
        CameraNotifier(camera: "porch", shared: manager, quorum: quorum, clock: clock).ready(status: "watching /dev/video4")
        XCTAssertEqual(manager.messages.filter { $0.hasPrefix("READY") }.count, 1)
    }
}
