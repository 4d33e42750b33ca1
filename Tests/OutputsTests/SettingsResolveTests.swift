import Capture
import LookCore
import Outputs
import Settings
import XCTest

/// Resolving settings gives values, never live objects: `--clips` resolves to a plan (where, how
/// long, how much the source keeps), the same plan each time it is resolved (a reload resolves
/// again), and the feed the source and the clip output share is made once, from it, by the
/// composition root.
final class SettingsResolveTests: XCTestCase {
    private func setup() throws -> WatchSetup {
        let flags = [
            SettingName.source.key: GivenSetting("/tmp/camera.mp4", from: .flag), SettingName.rules.key: GivenSetting("a cat=log", from: .flag),
            SettingName.clips.key: GivenSetting("on", from: .flag), SettingName.preRoll.key: GivenSetting("2", from: .flag),
        ]
        return try WatchSettings.setup(try WatchSettings.given(flags: flags, file: [:], environment: [:]))
    }

    func testClipsResolveToAPlanOfValuesAndTheFeedIsMadeFromIt() throws {
        let first = try setup(), again = try setup()
        let plan = try XCTUnwrap(first.outputs.clips)
        XCTAssertEqual(plan, again.outputs.clips, "resolved twice, the same values")
        XCTAssertNil(first.watch.sourceOptions.clips, "no feed made while resolving")
        XCTAssertNil(first.outputs.clipFeed)
        XCTAssertEqual(plan.preRoll, 2)
        XCTAssertEqual(plan.feedSeconds, 2 + plan.postRoll + 4, "the pre-roll, the post-roll and a keyframe interval's slack")
        XCTAssertEqual(plan.feedBudget, 64 << 20)
        let feed = plan.makeFeed()
        XCTAssertFalse(feed === plan.makeFeed(), "each call makes a feed: the composition root makes one and shares it")
    }
}
