import XCTest

@testable import ModelStore

/// What the catalog knows of a model's limits, said where a user meets them: shapes-tiny's measured
/// rule count (`lookd check`) and its trained question forms (`lookd ask`).
final class ModelLimitsTests: XCTestCase {
    func testShapesTinysLimitsAreSaidAndOthersAreQuiet() throws {
        let tiny = try XCTUnwrap(ModelCatalog.model("shapes-tiny"))
        XCTAssertNil(tiny.rulesNote(8))
        XCTAssertTrue(tiny.rulesNote(10)?.contains("measured with 1 to 8 rules") == true)
        for trained in ["What colour is the star?", "what color is the ball?", "How many things are there?", "What is in the picture?"] {
            XCTAssertNil(tiny.askNote(trained), trained)
        }
        for untrained in ["Is this a dog?", "What colour is the car?", "How many cats are there?"] {
            XCTAssertNotNil(tiny.askNote(untrained), untrained)
        }
        let real = try XCTUnwrap(ModelCatalog.model(ModelCatalog.defaultID))
        XCTAssertNil(real.rulesNote(40))
        XCTAssertNil(real.askNote("Is this a dog?"))
    }
}
