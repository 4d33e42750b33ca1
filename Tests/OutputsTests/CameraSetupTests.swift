import History
import LookCore
import Records
import Rules
import Settings
import Status
import TestSupport
import XCTest

@testable import Outputs

/// Each camera's settings in force: the watch's, with its source and own settings in their place,
/// its records in a folder of its name, one event log, and its name on the outputs.
final class CameraSetupTests: XCTestCase {
    private func cameras(
        flags: [String: String], file: [CameraEntry] = [], fileSettings: [String: GivenSetting] = [:]
    ) throws -> [CameraSetup] {
        var given = flags.mapValues { GivenSetting($0, from: .flag) }
        given[SettingName.rules.key] = given[SettingName.rules.key] ?? GivenSetting("a cat=log", from: .flag)
        let all = try WatchSettings.given(flags: given, file: fileSettings, environment: [:], needs: false)
        return try CameraSetup.cameras(all, flags: given, file: file)
    }

    func testEachCameraGetsItsSourceFolderAndNameAndSharesTheEventLog() throws {
        let setups = try cameras(
            flags: ["camera": "door=/dev/video0\nyard=rtsp://yard/s", "record": "/srv/lookd", "name": "house", "snapshots": "/srv/snaps"])
        XCTAssertEqual(setups.map(\.setup.watch.snapshotsDir), ["/srv/snaps/door", "/srv/snaps/yard"], "a snapshots folder a camera")
        XCTAssertEqual(setups.map(\.name), ["door", "yard"])
        XCTAssertEqual(setups.map(\.setup.watch.source), ["/dev/video0", "rtsp://yard/s"])
        XCTAssertEqual(setups.map(\.setup.watch.camera), ["door", "yard"])
        XCTAssertEqual(setups.map(\.setup.watch.recordDir), ["/srv/lookd/door", "/srv/lookd/yard"])
        XCTAssertEqual(setups.map(\.setup.watch.eventLogPath), ["/srv/lookd/lookd-events.jsonl", "/srv/lookd/lookd-events.jsonl"])
        XCTAssertEqual(setups.map(\.setup.outputs.name), ["house-door", "house-yard"], "a Home Assistant device a camera")
        XCTAssertEqual(
            setups.map(\.setup.outputs.historyPath), ["/srv/lookd/lookd-history.sqlite", "/srv/lookd/lookd-history.sqlite"], "one history")
        XCTAssertEqual(setups.map(\.setup.outputs.camera), ["door", "yard"], "whose rows name their camera")
        XCTAssertEqual(
            StatusFile.path(explicit: "/run/lookd/status.json", camera: "door"), "/run/lookd/status-door.json", "a status file a camera")
    }

    /// Hardening 6 (found by reading, test first): a reload keeps each camera's own folders of frames,
    /// effects and snapshots (the watch's, a folder of its name below), and its own gate settings.
    func testAReloadKeepsEachCamerasOwnFoldersAndGate() throws {
        let file = [
            CameraEntry(name: "door", source: "/dev/video0", line: 3, column: 5),
            CameraEntry(
                name: "yard", source: "/dev/video2", settings: ["gate-max": GivenSetting("9", from: .file("r.yaml", line: 6))], line: 5, column: 5),
        ]
        let flags = ["frames": "/srv/frames", "effects": "/srv/effects", "snapshots": "/srv/snaps", "gate-max": "40"]
        let setups = try cameras(flags: flags, file: file)
        for setup in setups {
            let name = setup.name.name
            let reread = try XCTUnwrap(setup.setup.watch.settingsReader).reread(file: [:], running: setup.setup.watch)
            XCTAssertEqual(reread.config.framesDir, "/srv/frames/\(name)", name)
            XCTAssertEqual(reread.config.effectsDir, "/srv/effects/\(name)", name)
            XCTAssertEqual(reread.config.snapshotsDir, "/srv/snaps/\(name)", name)
            XCTAssertEqual(reread.config.gate.maxSeconds, name == "yard" ? 9 : 40, name)
            XCTAssertEqual(reread.config.camera, CameraName(name))
        }
    }

    func testACameraOfTheFileKeepsItsOwnSettingsAndTheRestAreTheWatchs() throws {
        let file = [
            CameraEntry(name: "door", source: "/dev/video0", line: 3, column: 5),
            CameraEntry(
                name: "yard", source: "/dev/video2", settings: ["gate-threshold": GivenSetting("0.2", from: .file("r.yaml", line: 6))], line: 5,
                column: 5),
        ]
        let setups = try cameras(flags: ["gate-threshold": "0.05", "cooldown": "7", "http": "127.0.0.1:8470"], file: file)
        XCTAssertEqual(setups.map(\.setup.watch.gate.threshold), [0.05, 0.2], "the camera's own setting in place of the watch's")
        XCTAssertEqual(setups.map(\.setup.watch.cooldown), [7, 7])
        XCTAssertEqual(setups.map { $0.setup.outputs.http?.port }, [8470, 8470], "one page for every camera, each below its name")
        XCTAssertEqual(setups[1].given["gate-threshold"]?.origin, .file("r.yaml", line: 6))
    }

    func testFlagsTakeThePlaceOfTheFilesCamerasAndOneSourceIsOneCamera() throws {
        let file = [CameraEntry(name: "door", source: "/dev/video0", line: 3, column: 5)]
        XCTAssertEqual(try cameras(flags: ["camera": "garage=/dev/video4"], file: file).map(\.name), ["garage"])
        let one = try cameras(flags: ["source": "/dev/video0"])
        XCTAssertEqual(one.map(\.name), [.only], "one source is a house of one camera")
        XCTAssertEqual(one[0].setup.watch.camera, .only)
        XCTAssertFalse(one[0].setup.watch.camera.isNamed, "which its records do not name")
        XCTAssertNotEqual(CameraName.only, CameraName(CameraName.only.name), "a camera named main is named")
        XCTAssertEqual(one[0].setup.watch.recordDir, ".", "one source keeps its records where they always were")
    }

    func testWrongCamerasAreRefusedWithWhatToDo() {
        let file = [CameraEntry(name: "door", source: "/dev/video0", line: 3, column: 5)]
        let cases: [([String: String], [CameraEntry], String)] = [
            (["camera": "door=/dev/video0\ndoor=/dev/video1"], [], "--camera door is given twice"),
            (["source": "/dev/video0"], file, "--source and cameras are one or the other"),
            (["camera": "door"], [], "--camera is NAME=SOURCE (door=/dev/video0), not \"door\""),
            (["camera": "front door=/dev/video0"], [], "--camera \"front door=/dev/video0\": a camera's name is 1 to 32"),
            (["camera": "door="], [], "--camera \"door=\" has no source after the ="),
            (["camera": "door=/dev/video0", "pace": "frames"], [], "--pace goes with --source FILE"),
            (["camera": "door=/dev/video0\nyard=/dev/video2", "photo-seconds": "1"], [], "--photo-seconds goes with --source DIR"),
        ]
        for (flags, file, words) in cases {
            XCTAssertThrowsError(try cameras(flags: flags, file: file), "\(flags)") { error in
                let text = (error as? SettingProblem)?.text ?? "\(error)"
                XCTAssertTrue(text.hasPrefix(words), "\(text) should begin \(words)")
            }
        }
    }

    func testAWatchsSettingForOneKindOfSourceIsTheSettingOfEachCameraOfThatKind() throws {
        // A V4L2 camera beside a clip: --pace frames steps through the clip, and the camera is live.
        let setups = try cameras(flags: ["camera": "door=/dev/video0\nyard=/srv/yard.mp4", "pace": "frames"])
        XCTAssertEqual(setups.map { $0.given[SettingName.pace.key]?.text }, [nil, "frames"])
        XCTAssertEqual(setups.map { if case .frames = $0.setup.watch.sourceOptions.pace { true } else { false } }, [false, true])
        // And at a reload, each camera reads it again the same way.
        for setup in setups {
            let reader = try XCTUnwrap(setup.setup.watch.settingsReader)
            XCTAssertNoThrow(try reader.reread(file: [:], running: setup.setup.watch), "\(setup.name ?? "")")
        }
    }

    /// Each output a camera's settings make says how it meets the cameras of a house: the status
    /// file and MQTT are each camera's under a name of its own, the history and the page the
    /// house's, shared; a clip output is a camera's own, in its folder.
    func testEachOutputSaysHowItMeetsTheCamerasOfAHouse() throws {
        let dir = try Fixtures.scratch()
        let setups = try cameras(flags: [
            "camera": "door=/dev/video0\nyard=/dev/video2", "record": dir.path, "name": "house", "mqtt": "mqtt://127.0.0.1:1",
            "http": "127.0.0.1:8471", "status": dir.appendingPathComponent("status.json").path, "clips": "on",
        ])
        var places: [HouseShare: [String: Set<String>]] = [:]
        for setup in setups {
            var settings = setup.setup.outputs
            settings.clipFeed = settings.clips?.makeFeed()
            let outputs = settings.outputs(
                source: setup.setup.watch.source, eventsPath: setup.setup.watch.eventLogPath, snapshotsDir: nil, notifier: RecordingNotifier(),
                clock: ManualClock())
            for output in outputs {
                let place: String
                switch output {
                case let service as ServiceOutput: place = service.statusPath
                case let mqtt as MQTTOutput: place = mqtt.base
                case is HistoryWriter: place = try XCTUnwrap(settings.historyPath)
                case let web as WebOutput: place = "\(web.listen.host):\(web.listen.port)"
                case is ClipOutput: place = try XCTUnwrap(settings.clips?.folder)
                default: continue
                }
                places[output.share, default: [:]][output.name, default: []].insert(place)
            }
        }
        XCTAssertEqual(
            places[.renamedPerCamera]?["service"],
            [dir.appendingPathComponent("status-door.json").path, dir.appendingPathComponent("status-yard.json").path])
        XCTAssertEqual(places[.renamedPerCamera]?["mqtt"], ["lookd/house-door", "lookd/house-yard"])
        XCTAssertEqual(places[.sharedByTheHouse]?["history"], [dir.appendingPathComponent("lookd-history.sqlite").path], "one history")
        XCTAssertEqual(places[.sharedByTheHouse]?["http"]?.count, 1, "one address")
        XCTAssertEqual(places[.perCamera]?["clips"], [dir.appendingPathComponent("door/clips").path, dir.appendingPathComponent("yard/clips").path])
    }
}
