import Foundation
import LookCore
import ReactionDomain
import Rules
import TestSupport
import XCTest

/// `run:` and `post:` in the rules file and inline, and what `lookd check` refuses in them.
final class OutboundRulesTests: XCTestCase {
    private func problem(_ yaml: String) -> String {
        do {
            let set = try RulesFile.parse(yaml, source: "rules.yaml")
            return "accepted: \(set.rules)"
        } catch {
            return error.description
        }
    }

    func testRunAndPostInTheFile() throws {
        let set = try RulesFile.parse(
            """
            rules:
              - when: a person at the door
                run: [env, "At the door", "$(not a shell)"]
              - when: a parcel
                run: /bin/echo parcel here
              - when: a car
                post: https://ntfy.example/cars
              - when: a fox
                post:
                  url: http://hooks.local:8123/api/webhook/fox
                  format: json
                  snapshot: true
                  headers: {Title: Fox, X-Priority: "5"}
            """, source: "rules.yaml")
        guard let c = set.rules[0].reaction.as(RunReaction.self)?.command else { return XCTFail("\(set.rules[0].reaction)") }
        XCTAssertEqual(c.arguments, ["env", "At the door", "$(not a shell)"])
        XCTAssertTrue(c.executable.hasSuffix("/env") && FileManager.default.isExecutableFile(atPath: c.executable), "found in PATH: \(c.executable)")
        XCTAssertEqual(set.rules[1].reaction, .run(Command(arguments: ["/bin/echo", "parcel", "here"], executable: "/bin/echo")))
        XCTAssertEqual(set.rules[2].reaction, .post(Post(url: "https://ntfy.example/cars")))
        XCTAssertEqual(
            set.rules[3].reaction,
            .post(
                Post(
                    url: "http://hooks.local:8123/api/webhook/fox", format: .json,
                    headers: [.init(name: "Title", value: "Fox"), .init(name: "X-Priority", value: "5")], snapshot: true)))
        XCTAssertEqual(set.rules[2].reaction.inlineForm, "post:https://ntfy.example/cars")
        XCTAssertEqual(set.rules[1].reaction.name, "run")
    }

    func testRunAndPostInline() throws {
        let set = try InlineRules.parse("a cat=run:/bin/echo cat seen|a dog=post:http://127.0.0.1:8080/hook?x=1")
        XCTAssertEqual(set.rules[0].reaction, .run(Command(arguments: ["/bin/echo", "cat", "seen"], executable: "/bin/echo")))
        XCTAssertEqual(set.rules[1].reaction, .post(Post(url: "http://127.0.0.1:8080/hook?x=1")))
        XCTAssertThrowsError(try InlineRules.parse("a cat=run:")) { error in
            XCTAssertTrue("\(error)".contains("run needs a program, like run: [notify-send, \"At the door\"]"), "\(error)")
        }
    }

    func testWhatIsRefusedAndWhere() throws {
        let dir = try Fixtures.scratch()
        let plain = dir.appendingPathComponent("notes.txt").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: plain))
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    run: [/no/such/program]"), "rules.yaml:3:10: the program /no/such/program does not exist")
        XCTAssertEqual(problem("rules:\n  - when: a cat\n    run: [\(plain)]"), "rules.yaml:3:10: \(plain) is not an executable file")
        XCTAssertEqual(problem("rules:\n  - when: a cat\n    run: [/tmp]"), "rules.yaml:3:10: /tmp is not an executable file")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    run: no-such-program-here"),
            "rules.yaml:3:10: no program \"no-such-program-here\" in PATH; write its full path")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    run: []"), "rules.yaml:3:10: run needs a program, like run: [notify-send, \"At the door\"]")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    post: ftp://host/x"),
            "rules.yaml:3:11: post needs an http:// or https:// URL with a host, not \"ftp://host/x\"")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    post: not a url"),
            "rules.yaml:3:11: post needs an http:// or https:// URL with a host, not \"not a url\"")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    post: {url: 'http://h/x', format: text, snapshot: true}"),
            "rules.yaml:3:11: snapshot: true needs format: json (a text post is one line)")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    post: {url: 'http://h/x', format: xml}"), "rules.yaml:3:11: format: is json or text, not \"xml\"")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    post: {url: 'http://h/x', headers: {\"Bad Name\": x}}"),
            "rules.yaml:3:11: \"Bad Name\" is not a header name (letters, digits, - and _)")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    post: {url: 'http://h/x', method: PUT}"),
            "rules.yaml:3:39: unknown key \"method\" in post:; use url, format, headers, snapshot or wait")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    post: http://h/x\n    run: [/bin/true]"),
            "rules.yaml:3:5: a rule has exactly one reaction; this one has run and post")
    }

    /// Line breaks and control characters in a post's URL or a header's name could split a request
    /// or drive a terminal: refused, and the message shows them escaped.
    func testControlCharactersInAPostAreRefusedAndShownEscaped() {
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    post: \"http://h/x\\r\\nX-Injected: 1\""),
            "rules.yaml:3:11: the post's URL holds the control character U+000D (carriage return); write it in plain words")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    post: \"http://h/a b\""), "rules.yaml:3:11: the post's URL has a space in it; write %20 for one")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    post: {url: 'http://h/x', headers: {\"X\\e]0;t\\aY\": x}}"),
            "rules.yaml:3:11: \"X\\u{1B}]0;t\\u{7}Y\" is not a header name (letters, digits, - and _)")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    post: \"https://u:secretpw@h/x y\""),
            "rules.yaml:3:11: the post's URL has a space in it; write %20 for one")
    }
}
