import Foundation
import TestSupport
import XCTest

/// The limits that keep the house readable (docs/architecture.md, "Limits that keep the house
/// readable"): no file over 300 lines, no function over 60, no target over 30 files, and no wait on
/// real time below the root but those the architecture lists with their reasons.
final class ReadableHouseTests: XCTestCase {
    private func swiftFiles(under folder: String) throws -> [(path: String, lines: [Substring])] {
        let dir = Fixtures.root.appendingPathComponent(folder)
        return try FileManager.default.subpathsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".swift") }.sorted().map {
            let text = try String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8)
            return ("\(folder)/\($0)", text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0))
        }
    }

    func testNoFileIsOver300LinesAndNoTargetOver30Files() throws {
        let files = try swiftFiles(under: "Sources")
        XCTAssertGreaterThan(files.count, 200, "the sources are read")
        let long = files.filter { $0.lines.count > 300 }.map { "\($0.path): \($0.lines.count) lines" }
        XCTAssertEqual(long, [], "no file over 300 lines")
        let targets = Dictionary(grouping: files) { $0.path.split(separator: "/")[1] }
        let crowded = targets.filter { $0.value.count > 30 }.map { "Sources/\($0.key): \($0.value.count) files" }
        XCTAssertEqual(crowded, [], "no target over 30 files")
    }

    /// A function's length: from its declaration to the line that closes it at its own indentation
    /// (one-line functions and protocol requirements have none).
    static func functionLengths(_ lines: [Substring]) -> [(line: Int, length: Int)] {
        let declaration =
            /^(\s*)(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|static|class|mutating|override|final|nonisolated|convenience|required)\s+)*(?:func\s|init[?(<]|deinit\b)/
        var found: [(Int, Int)] = []
        for (i, line) in lines.enumerated() {
            guard let match = line.firstMatch(of: declaration) else { continue }
            let indent = String(match.1)
            if line.contains("{") && line.hasSuffix("}") { continue }
            for j in (i + 1)..<lines.count {
                let next = lines[j]
                if next.hasPrefix(indent + "}") {
                    found.append((i + 1, j - i + 1))
                    break
                }
                if !next.trimmingCharacters(in: .whitespaces).isEmpty && !next.hasPrefix(indent + " ") && !next.hasPrefix(indent + ")") { break }
            }
        }
        return found
    }

    func testNoFunctionIsOver60Lines() throws {
        let sample: [Substring] =
            ["    func a() {", "        one()", "    }", "    func b() { two() }", "    init(x: Int) {"] + Array(repeating: "        x()", count: 61)
            + ["    }"]
        XCTAssertEqual(Self.functionLengths(sample).map(\.length), [3, 63], "the measure finds bodies and skips one-liners")
        var long: [String] = []
        var counted = 0
        for file in try swiftFiles(under: "Sources") {
            let lengths = Self.functionLengths(file.lines)
            counted += lengths.count
            long += lengths.filter { $0.length > 60 }.map { "\(file.path):\($0.line): \($0.length) lines" }
        }
        XCTAssertGreaterThan(counted, 1000, "the functions are found")
        XCTAssertEqual(long, [], "no function over 60 lines")
    }

    /// Every wait on real time below the root (a condition's or a group's timed wait) is in
    /// docs/architecture.md's list with its reason, and every file the list names still waits.
    func testEveryRealWaitBelowTheRootIsListedWithItsReason() throws {
        let files = try swiftFiles(under: "Sources").filter { !$0.path.hasPrefix("Sources/lookd/") && !$0.path.hasPrefix("Sources/bench-") }
        let waiting = Set(
            files.filter { file in
                file.lines.contains { $0.contains(/\.wait\((timeout|slice):/) && !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            }.map(\.path))
        let doc = try String(contentsOf: Fixtures.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let block = try XCTUnwrap(doc.components(separatedBy: "Real waits below the root:").dropFirst().first?.components(separatedBy: "```")[1])
        var listed: [String: String] = [:]
        for line in block.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard parts.count == 2 else { continue }
            listed[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        XCTAssertGreaterThan(waiting.count, 3, "the waits are found")
        XCTAssertEqual(waiting.subtracting(listed.keys).sorted(), [], "a real wait the architecture does not list")
        XCTAssertEqual(Set(listed.keys).subtracting(waiting).sorted(), [], "a listed wait that is gone")
        XCTAssertTrue(listed.values.allSatisfy { $0.count > 10 }, "each with its reason")
    }

    /// lookd's code inside llama.cpp is the project's source (kernels/); the patches hold the hooks
    /// that include it and what must change inside llama.cpp, at most 350 added lines in all, and
    /// every hook names a file kernels/ has at that place.
    func testThePatchesAreHooksAndTheKernelsAreSource() throws {
        let folder = Fixtures.root.appendingPathComponent("tools/patches")
        let patches = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".patch") }.sorted()
        XCTAssertGreaterThan(patches.count, 5, "the patches are read")
        var added = 0
        var hooks: [String] = []
        for name in patches {
            var file = ""
            for line in try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8).split(separator: "\n") {
                if line.hasPrefix("+++ ") {
                    file = String(line.dropFirst(4).split(separator: "\t")[0].dropFirst(2))
                    continue
                }
                guard line.hasPrefix("+") else { continue }
                added += 1
                if let hook = line.firstMatch(of: /^\+#include "(lookd-[^"]+)"/) {
                    hooks.append(((file as NSString).deletingLastPathComponent as NSString).appendingPathComponent(String(hook.1)))
                }
            }
        }
        XCTAssertLessThanOrEqual(added, 350, "the lines the patches add to llama.cpp")
        XCTAssertGreaterThan(hooks.count, 5, "the hooks are found")
        for hook in hooks {
            XCTAssertTrue(FileManager.default.fileExists(atPath: Fixtures.root.appendingPathComponent("kernels/\(hook)").path), "kernels/\(hook)")
        }
        // A file's preprocessor conditionals balance within it (an #if closed in llama.cpp's own file
        // does not compile).
        let kernels = Fixtures.root.appendingPathComponent("kernels")
        for file in try FileManager.default.subpathsOfDirectory(atPath: kernels.path) where file.hasSuffix(".inc") || file.hasSuffix(".h") {
            var depth = 0
            for line in try String(contentsOf: kernels.appendingPathComponent(file), encoding: .utf8).split(separator: "\n") {
                let directive = line.trimmingCharacters(in: .whitespaces)
                if directive.hasPrefix("#if") { depth += 1 }
                if directive.hasPrefix("#elif") || directive.hasPrefix("#else") { XCTAssertGreaterThan(depth, 0, "kernels/\(file): \(line)") }
                if directive.hasPrefix("#endif") { depth -= 1 }
                XCTAssertGreaterThanOrEqual(depth, 0, "kernels/\(file): \(line)")
            }
            XCTAssertEqual(depth, 0, "kernels/\(file)'s conditionals end within it")
        }
        let sgemm = try String(
            contentsOf: Fixtures.root.appendingPathComponent("kernels/ggml/src/ggml-cpu/llamafile/lookd-sgemm.inc"), encoding: .utf8)
        XCTAssertTrue(sgemm.contains("_mm512_dpbusd_epi32") && sgemm.contains("_mm256_dpbusd_avx_epi32"), "the VNNI kernels are source here")
    }
}
