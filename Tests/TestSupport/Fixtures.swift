import Foundation

/// Where the test fixtures and the built binary are, found from this file's place in the checkout.
public enum Fixtures {
    /// The checkout's root.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The tiny random-weight MiniCPM-V pair (tools/make-fixture-models), committed under Tests/Fixtures.
    public static let model = root.appendingPathComponent("Tests/Fixtures/models/tiny-minicpmv-Q8_0.gguf").path
    public static let mmproj = root.appendingPathComponent("Tests/Fixtures/models/tiny-minicpmv-mmproj-Q8_0.gguf").path

    /// The tiny MiniCPM-V 4.7 pair in upstream's format (F32; tools/fixture_models_47.py), its pictures and
    /// transformers' reference logits for them.
    public static let model47 = root.appendingPathComponent("Tests/Fixtures/models/tiny-minicpmv47-F32.gguf").path
    public static let mmproj47 = root.appendingPathComponent("Tests/Fixtures/models/tiny-minicpmv47-mmproj-F32.gguf").path
    /// A variant of the 4.7 language model (`nokey`, `zyxt`, `tyxz`, `badorder`) or mmproj (`mmproj-sep`)
    /// that tools/fixture_variants_47.py made.
    public static func variant47(_ name: String) -> String {
        root.appendingPathComponent("Tests/Fixtures/models/tiny-minicpmv47-\(name)-F32.gguf").path
    }
    public static let reference47 = root.appendingPathComponent("Tests/Fixtures/models/tiny-minicpmv47-reference.json")

    /// The `lookd` executable that `swift build` made beside the test bundle.
    public static var lookd: String {
        let bundle = Bundle.main.bundleURL // .build/<triple>/<config>/
        let candidates = [
            bundle.appendingPathComponent("lookd").path,
            bundle.deletingLastPathComponent().appendingPathComponent("lookd").path,
            root.appendingPathComponent(".build/debug/lookd").path,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[2]
    }

    /// A scripted model's answers (`--model script:FILE`), one line each, as `script.txt` in `dir`.
    public static func script(_ lines: [String], in dir: URL) throws -> String {
        let file = dir.appendingPathComponent("script.txt").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// A fresh empty folder for one test.
    public static func scratch(_ name: String = #function) throws -> URL {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lookd-tests/\(safe)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }
}
