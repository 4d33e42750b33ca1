import Foundation
import LookCore
import ReactionDomain
import TestSupport
import XCTest

/// docs/architecture.md's table of targets and imports is Package.swift's and the sources' own, and
/// each C library is imported by the one target that wraps it; FoundationNetworking by none.
final class ArchitectureTests: XCTestCase {
    /// Package.swift's targets and their dependencies (system libraries and test targets left out).
    private func packageTargets() throws -> [String: Set<String>] {
        let text = try String(contentsOf: Fixtures.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var targets: [String: Set<String>] = [:]
        for chunk in text.components(separatedBy: ".target(").dropFirst() + text.components(separatedBy: ".executableTarget(").dropFirst() {
            let body = chunk.prefix { $0 != ")" }
            guard let name = body.firstMatch(of: /name: "([^"]+)"/)?.1 else { continue }
            let deps = body.firstMatch(of: /dependencies: \[([^\]]*)\]/).map { String($0.1) } ?? ""
            targets[String(name)] = Set(deps.matches(of: /"([^"]+)"/).map { String($0.1) })
        }
        return targets.filter { !$0.key.hasPrefix("Test") }
    }

    /// The architecture doc's table: `Target   A, B, C` lines in the block after "Which target imports which".
    private func readmeTable() throws -> [String: Set<String>] {
        let text = try String(contentsOf: Fixtures.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let range = try XCTUnwrap(text.range(of: "Which target imports which"))
        let block = text[range.upperBound...].components(separatedBy: "```")[1]
        var table: [String: Set<String>] = [:]
        for line in block.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard parts.count == 2 else { continue }
            let deps = parts[1].trimmingCharacters(in: .whitespaces)
            table[String(parts[0])] =
                deps == "Foundation only" ? [] : Set(deps.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        return table
    }

    /// The modules each target's sources import (Foundation, Dispatch and Glibc left out).
    private func sourceImports() throws -> [String: Set<String>] {
        let sources = Fixtures.root.appendingPathComponent("Sources")
        var imports: [String: Set<String>] = [:]
        for file in try FileManager.default.subpathsOfDirectory(atPath: sources.path) where file.hasSuffix(".swift") {
            let target = String(file.prefix { $0 != "/" })
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: /(?m)^(?:@testable |internal |public |@_implementationOnly )*import ([A-Za-z0-9_]+)$/) {
                let module = String(match.1)
                if !["Foundation", "Dispatch", "Glibc"].contains(module) { imports[target, default: []].insert(module) }
            }
        }
        return imports
    }

    func testTheArchitectureDocsTableOfImportsIsPackageSwiftsAndTheSourcesOwn() throws {
        let package = try packageTargets()
        let table = try readmeTable()
        let imported = try sourceImports()
        XCTAssertGreaterThanOrEqual(package.count, 14)
        XCTAssertEqual(Set(table.keys), Set(package.keys), "the same targets in docs/architecture.md and Package.swift")
        for (target, deps) in package.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(table[target], deps, "\(target)'s imports in docs/architecture.md")
            XCTAssertEqual(imported[target] ?? [], deps, "\(target)'s sources import exactly what Package.swift lets them")
        }
    }

    /// The pipeline is below its outputs: nothing Watch depends on, directly or through another
    /// target, is an output (Outputs, History), the settings above them, or a C library only outputs
    /// link (libmosquitto, libmicrohttpd, libsqlite3). So a pipeline can be made N times without them.
    func testThePipelineHasNoOutputInItsDependencyClosure() throws {
        let package = try packageTargets()
        var closure: Set<String> = []
        var next = Array(package["Watch"] ?? [])
        while let target = next.popLast() {
            if closure.insert(target).inserted { next += package[target] ?? [] }
        }
        XCTAssertTrue(closure.isSuperset(of: ["Config", "VLM", "Rules", "Records"]), "the closure is read: \(closure.sorted())")
        XCTAssertTrue(
            closure.isDisjoint(with: ["Outputs", "History", "Settings", "CMosquitto", "CMicroHTTPD", "CSQLite"]), "\(closure.sorted())")
    }

    /// The Swift files under `folder` (relative to the repository), with their text.
    private func swiftFiles(under folder: String) throws -> [(path: String, text: String)] {
        let dir = Fixtures.root.appendingPathComponent(folder)
        return try FileManager.default.subpathsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".swift") }.sorted().map {
            ("\(folder)/\($0)", try String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8))
        }
    }

    /// Each line of `files` that matches `pattern`, as `path:line: text`.
    private func lines(_ files: [(path: String, text: String)], matching pattern: Regex<Substring>) -> [String] {
        files.flatMap { file in
            file.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { n, line in
                line.contains(pattern) && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") ? "\(file.path):\(n + 1): \(line)" : nil
            }
        }
    }

    /// One clock, handed down (issue 70): below the composition root (the executable) nothing reads
    /// the system's time or makes a clock of its own, and nothing waits on Dispatch's or a thread's
    /// time: countdowns, retries, backoff, the poster and the watchdog wait on the injected `Clock`.
    /// The tests drive that clock (`ManualClock`) where they can: at most 25 real sleeps are left,
    /// for real programs (PulseAudio, lookd itself, a stream's server), the one polling wait and
    /// the paced manual clock.
    func testTimeComesFromTheOneClockTheRootMakes() throws {
        let below = try swiftFiles(under: "Sources").filter { file in
            !file.path.hasPrefix("Sources/lookd/") && !file.path.hasPrefix("Sources/bench-") && file.path != "Sources/LookCore/Clock.swift"
        }
        XCTAssertGreaterThan(below.count, 100, "the sources are read")
        let reads = lines(below, matching: /Date\(\)|MonotonicClock\(\)/)
        XCTAssertEqual(reads, [], "no Date() or clock made below the root")
        let waits = lines(below, matching: /asyncAfter|makeTimerSource|Thread\.sleep|usleep\(|wait\(until:/)
        // The one left: opening a FIFO gives a reader a moment to come (SafeFile), no time of a run.
        XCTAssertEqual(waits.map { $0.components(separatedBy: ":")[0] }, ["Sources/Platform/SafeFile.swift"], waits.joined(separator: "\n"))
        let tests = try swiftFiles(under: "Tests")
        let sleeps = lines(tests, matching: /usleep\(|Thread\.sleep\(|(?:^|[^.\w])sleep\(/).filter { !$0.contains("func sleep(") }
        XCTAssertGreaterThan(sleeps.count, 0, "the tests are read")
        XCTAssertLessThanOrEqual(sleeps.count, 25, sleeps.joined(separator: "\n"))
    }

    /// Outcomes are values built once (issue 70): a frame's outcome, a fire's and a frame's end have
    /// no mutable stored property, and the pipeline emits each once.
    func testAFramesAndAFiresOutcomesAreImmutableAndEmittedOnce() throws {
        let records = try swiftFiles(under: "Sources/Records")
        for type in ["FrameOutcome", "FireOutcome", "FrameEnd"] {
            let text = try XCTUnwrap(records.first { $0.text.contains("public struct \(type): ") }?.text, type)
            let body = text.components(separatedBy: "public struct \(type): ")[1].components(separatedBy: "\n}\n")[0]
            let stored = body.split(separator: "\n").filter {
                $0.wholeMatch(of: /\ {4}(public |private |private\(set\) )?var [a-zA-Z]+: [^{]+/) != nil
            }
            let lets = body.split(separator: "\n").filter { $0.hasPrefix("    public let ") }
            XCTAssertGreaterThan(lets.count, 1, "\(type)'s properties are read")
            XCTAssertEqual(stored, [], "\(type) has no mutable stored property")
        }
        let pipeline = try swiftFiles(under: "Sources/Watch").map(\.text).joined(separator: "\n")
        for event in [".emit(.answered(", ".emit(.fired(", ".emit(.frame("] {
            XCTAssertEqual(pipeline.components(separatedBy: event).count - 1, 1, "the pipeline emits \(event)…) once")
        }
    }

    func testEachCLibraryIsImportedByTheOneTargetThatWrapsItAndNoneImportsFoundationNetworking() throws {
        let owners = [
            "CFFmpeg": "Media", "CCurl": "HTTP", "CV4L2": "Capture", "CLlama": "VLM", "CCrypto": "ModelStore", "CYAML": "Rules",
            "CPulse": "Reactions", "CEspeak": "Reactions", "CMosquitto": "Outputs", "CMicroHTTPD": "Outputs",
        ]
        let sources = Fixtures.root.appendingPathComponent("Sources")
        let files = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: sources.path)).filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 100)
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            let target = String(file.prefix { $0 != "/" })
            XCTAssertFalse(text.contains("import FoundationNetworking"), file)
            for match in text.matches(of: /import (C[A-Za-z0-9]+)\n/) {
                let module = String(match.1)
                guard let owner = owners[module] else { continue }
                XCTAssertEqual(target, owner, "\(file) imports \(module)")
            }
        }
    }

    /// The loop is a driver of stages (issue 40): at most 150 lines and 10 stored properties; the
    /// stages own their state.
    func testTheLoopIsAShortDriverOfStages() throws {
        let path = Fixtures.root.appendingPathComponent("Sources/Watch/WatchLoop.swift")
        let text = try String(contentsOf: path, encoding: .utf8)
        XCTAssertLessThanOrEqual(text.split(separator: "\n", omittingEmptySubsequences: false).count - 1, 150)
        // Stored properties: `let`/`var` at the class's own level (4 spaces), not computed (`{` after the type).
        let stored = text.split(separator: "\n").filter { line in
            line.wholeMatch(of: /\ {4}(public |private |private\(set\) |public private\(set\) )?(let|var) [a-zA-Z]+(: [^{=]+)?( = [^{]+)?/) != nil
        }
        XCTAssertGreaterThan(stored.count, 0, "the pattern finds the loop's properties")
        XCTAssertLessThanOrEqual(stored.count, 10, stored.joined(separator: "\n"))
        XCTAssertFalse(text.contains("FileManager") || text.contains("Date()") || text.contains("PNGWriter"), "no I/O or real clock in the loop")
    }

    /// Each reaction kind is one type in its own file in Sources/ReactionDomain/Kinds/, listed once.
    /// (Nothing can switch over the kinds: `Reaction` is a struct around one kind's value, so a
    /// pattern such as `case .effect(let e, _)` does not compile.)
    func testEachReactionKindIsOneTypeInItsOwnFile() throws {
        let folder = Fixtures.root.appendingPathComponent("Sources/ReactionDomain/Kinds")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        XCTAssertEqual(Set(files), Set(ReactionKinds.all.map { "\($0).swift" }), "one file per kind, named for it")
        for kind in ReactionKinds.all {
            let text = try String(contentsOf: folder.appendingPathComponent("\(kind).swift"), encoding: .utf8)
            // `SwitchReaction` is `ReactionKind` for the kinds that take no value (count, log).
            let declared = ["ReactionKind", "SwitchReaction"].contains { text.contains("public struct \(kind): \($0) {") }
            XCTAssertTrue(declared, "\(kind).swift declares it")
        }
        XCTAssertEqual(Set(ReactionKinds.all.map { $0.key }).count, ReactionKinds.all.count, "each key names one kind")
    }

    /// Each watch setting's name is written once in the sources, as its `SettingName` case: no help
    /// text, message or command spells `--NAME` of a watch setting itself (it writes
    /// `\(SettingName.NAME)`), so a renamed setting changes everywhere with its declaration.
    func testEachWatchSettingsFlagIsWrittenOnlyInItsDeclaration() throws {
        let help = try Subprocess.run(Fixtures.lookd, ["watch", "--help"])
        let flags = Set(help.stdout.matches(of: /(?m)^ +--([a-z][a-z0-9-]+)/).map { String($0.1) })
        XCTAssertTrue(flags.isSuperset(of: ["snapshots", "mqtt", "vision-weights", "keep-days", "no-sound"]), "\(flags.sorted())")
        XCTAssertEqual(flags, Set(SettingName.allCases.map(\.key)), "every declared name is a flag of lookd watch, and every flag declared")
        let sources = Fixtures.root.appendingPathComponent("Sources")
        var spelled: [String] = []
        for file in try FileManager.default.subpathsOfDirectory(atPath: sources.path) where file.hasSuffix(".swift") {
            if file.hasPrefix("bench-gate/") || file.hasPrefix("bench-clips/") { continue } // the benchmarks' own flags
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                for match in line.matches(of: /(?:^|[^-\w])--([a-z][a-z0-9-]*[a-z0-9])(?![-\w])/) where flags.contains(String(match.1)) {
                    spelled.append("\(file):\(n + 1): --\(match.1)")
                }
            }
        }
        XCTAssertEqual(spelled, [], "a watch setting's flag spelled outside its declaration")
    }

    /// A message or a help text that names an option names one that exists: every `--name` in the
    /// sources' code (comments aside) is an option some `lookd … --help` lists, so a renamed or
    /// removed option cannot live on in an error's advice. Not options: the page's CSS variables
    /// (`--dim`, in Outputs/Web), other programs' flags, and the benchmarks' own (bench-gate, bench-clips).
    func testEveryOptionTheSourcesNameIsOneTheCommandsDeclare() throws {
        var declared: Set<String> = []
        for command in [[], ["watch"], ["ask"], ["check"], ["eval"], ["status"], ["models"], ["history"]] {
            let help = try Subprocess.run(Fixtures.lookd, command + ["--help"])
            for match in (help.stdout + help.stderr).matches(of: /(?:^|[^-\w])--([a-z][a-z0-9-]+)/) { declared.insert(String(match.1)) }
        }
        XCTAssertTrue(declared.isSuperset(of: ["snapshots", "mqtt", "vision-weights", "tolerance", "encode-again"]), "\(declared.sorted())")
        let sources = Fixtures.root.appendingPathComponent("Sources")
        var unknown: [String] = []
        for file in try FileManager.default.subpathsOfDirectory(atPath: sources.path) where file.hasSuffix(".swift") {
            if file.hasPrefix("Outputs/Web/") || file.hasPrefix("bench-gate/") || file.hasPrefix("bench-clips/") { continue }
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                for match in line.matches(of: /(?:^|[^-\w])--([a-z][a-z0-9-]+)/) where !declared.contains(String(match.1)) {
                    if match.1 == "list-devices" { continue } // v4l2-ctl's, in the camera's advice
                    if match.1 == "user", file == "LookCore/Secrets.swift" { continue } // curl's, whose value run:'s masking hides
                    unknown.append("\(file):\(n + 1): --\(match.1)")
                }
            }
        }
        XCTAssertEqual(unknown, [], "options named in messages that no command declares")
    }
}
