import LookCore
import XCTest

/// Settings declared once: values land in their target or are refused naming the flag or the
/// file's line; needs, defaults, help and changes come from the declarations.
final class SettingTests: XCTestCase {
    private struct Target {
        var cooldown = 3.0
        var tokens: Int?
        var sound = true
        var snapshots: String?
        var keep = 1000
        var inner = Inner()
    }
    private struct Inner { var context = 4096 }

    private var list: SettingList<Target> {
        SettingList(
            [
                .number(.cooldown, \.cooldown, in: 0...3600, group: "Firing", help: "seconds between fires", reload: true),
                .integer(.tokens, \.tokens, in: 1...100, group: "Firing", help: "answer tokens", defaultWords: "as many as needed"),
                .toggle(.noSound, \.sound, inverted: true, group: "Firing", help: "no sounds"),
                .text(.snapshots, \.snapshots, "DIR", group: "Records", help: "each fire's frame"),
                .integer(.keepSnapshots, \.keep, in: 1...100_000, group: "Records", help: "how many stay", needs: SettingNeed(.snapshots)),
            ]
                + SettingList<Inner>([.integer(.context, \.context, in: 512...8192, group: "Model", help: "tokens")]).settings.map {
                    $0.lifted(\.inner)
                })
    }

    func testGivenValuesLandInTheTargetAndTheRestKeepTheirDefaults() throws {
        let given = [
            "cooldown": GivenSetting("5", from: .file("r.yaml", line: 3)), "no-sound": GivenSetting("true", from: .flag),
            "context": GivenSetting("1024", from: .flag),
        ]
        let target = try list.resolve(given, over: Target())
        XCTAssertEqual(target.cooldown, 5)
        XCTAssertFalse(target.sound)
        XCTAssertEqual(target.inner.context, 1024)
        XCTAssertNil(target.tokens)
        let shown = list.inForce(target, given: given)
        XCTAssertEqual(shown.first { $0.name == "cooldown" }, SettingInForce(name: "cooldown", value: "5", origin: .file("r.yaml", line: 3)))
        XCTAssertEqual(shown.first { $0.name == "no-sound" }?.value, "true")
        XCTAssertEqual(shown.first { $0.name == "keep-snapshots" }, SettingInForce(name: "keep-snapshots", value: "1000", origin: .byDefault))
        XCTAssertEqual(list.changed(from: Target(), to: target).map(\.name), ["cooldown", "no-sound", "context"])
    }

    func testABadValueNamesTheFlagOrTheFilesLine() {
        XCTAssertThrowsError(try list.resolve(["cooldown": GivenSetting("soon", from: .file("r.yaml", line: 4))], over: Target())) {
            XCTAssertEqual(($0 as? SettingProblem)?.text, "r.yaml:4: cooldown must be a number from 0 to 3600, not \"soon\"")
        }
        XCTAssertThrowsError(try list.resolve(["tokens": GivenSetting("0", from: .flag)], over: Target())) {
            XCTAssertEqual(($0 as? SettingProblem)?.text, "--tokens must be a whole number from 1 to 100, not \"0\"")
        }
        XCTAssertThrowsError(try list.resolve(["no-sound": GivenSetting("maybe", from: .flag)], over: Target())) {
            XCTAssertEqual(($0 as? SettingProblem)?.text, "--no-sound is true or false, not \"maybe\"")
        }
        XCTAssertThrowsError(try list.resolve(["cooldown": GivenSetting("nan", from: .flag)], over: Target()))
    }

    func testASettingWithoutWhatItNeedsIsNamedWithIt() {
        let catalog = SettingCatalog(list.infos, defaults: list.defaults(Target()))
        XCTAssertEqual(
            catalog.unmetNeed(["keep-snapshots": GivenSetting("5", from: .flag)]),
            "--keep-snapshots goes with --snapshots; without it, it does nothing")
        XCTAssertNil(
            catalog.unmetNeed(["keep-snapshots": GivenSetting("5", from: .flag), "snapshots": GivenSetting("/x", from: .file("r", line: 2))]))
    }

    func testTheHelpShowsEachSettingInItsGroupWithItsTrueDefault() {
        let catalog = SettingCatalog(list.infos, defaults: list.defaults(Target()))
        let help = catalog.help(groups: ["Firing", "Records", "Model"], width: 72)
        XCTAssertTrue(help.hasPrefix("Firing:\n  --cooldown S          seconds between fires (default 3)\n"), help)
        XCTAssertTrue(help.contains("  --tokens N            answer tokens (default as many as needed)\n"), help)
        XCTAssertTrue(help.contains("  --no-sound            no sounds\n"), help)
        XCTAssertTrue(help.contains("Records:\n  --snapshots DIR       each fire's frame\n"), help)
        XCTAssertTrue(help.contains("  --keep-snapshots N    how many stay (default 1000); goes with\n                        --snapshots"), help)
        XCTAssertTrue(help.hasSuffix("Model:\n  --context N           tokens (default 4096)"), help)
        XCTAssertFalse(help.split(separator: "\n").contains { $0.count > 72 }, help)
    }
}
