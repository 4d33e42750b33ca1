internal import CYAML
import LookCore
import ReactionDomain

/// A YAML document as a tree of nodes that remember where they were written (libyaml's event parser).
/// Anchors and aliases, tags and more than one document are refused: a rules file needs none.
indirect enum YAMLNode: Sendable {
    case scalar(String, Mark, plain: Bool)
    case sequence([YAMLNode], Mark)
    case mapping([(key: YAMLNode, value: YAMLNode)], Mark)

    /// A 1-based line and column.
    struct Mark: Sendable, Equatable {
        var line: Int
        var column: Int
    }

    var mark: Mark {
        switch self {
        case .scalar(_, let m, _), .sequence(_, let m), .mapping(_, let m): return m
        }
    }

    /// The text of a scalar, nil for a sequence or mapping.
    var text: String? {
        if case .scalar(let s, _, _) = self { return s }
        return nil
    }

    /// The node as a reaction kind reads it, with its places.
    var reactionValue: ReactionValue {
        switch self {
        case .scalar(let text, let m, _): .word(text, line: m.line, column: m.column)
        case .sequence(let items, let m): .list(items.map(\.reactionValue), line: m.line, column: m.column)
        case .mapping(let pairs, let m): .map(pairs.map { ($0.key.text ?? "", $0.value.reactionValue) }, line: m.line, column: m.column)
        }
    }

    /// What this node is, in words, for messages.
    var kind: String {
        switch self {
        case .scalar: return "a value"
        case .sequence: return "a list"
        case .mapping: return "a set of keys"
        }
    }

    /// Parses `text`; returns nil for an empty document. Throws (message, mark) on bad YAML.
    static func parse(_ text: String) throws(YAMLFailure) -> YAMLNode? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw YAMLFailure(message: "out of memory", mark: Mark(line: 0, column: 0)) }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buffer throws(YAMLFailure) -> YAMLNode? in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var builder = Builder()
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else {
                    let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
                    let context = parser.context.map { String(cString: $0) + ": " } ?? ""
                    throw YAMLFailure(
                        message: "invalid YAML: \(context)\(problem)",
                        mark: Mark(line: Int(parser.problem_mark.line) + 1, column: Int(parser.problem_mark.column) + 1))
                }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { return builder.root }
                try builder.take(event)
            }
        }
    }

    /// Assembles nodes from parser events.
    private struct Builder {
        /// A sequence or mapping still open. Its lists are mutated in place on the stack (a copy taken
        /// out and pushed back would copy the whole list at every item: quadratic in the rules).
        struct Open {
            var isMapping: Bool
            var items: [YAMLNode] = []
            var pairs: [(key: YAMLNode, value: YAMLNode)] = []
            var pendingKey: YAMLNode?
            var mark: Mark
        }
        var stack: [Open] = []
        var root: YAMLNode?
        /// The deepest nesting taken: a rules file needs four or five levels; a bound keeps a hostile
        /// file (40,000 nested `[`) from a tree whose teardown would overflow the stack.
        static let maxDepth = 64
        var documents = 0

        mutating func take(_ event: yaml_event_t) throws(YAMLFailure) {
            let mark = Mark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
            switch event.type {
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 { throw YAMLFailure(message: "more than one YAML document; put all rules in one", mark: mark) }
            case YAML_ALIAS_EVENT:
                throw YAMLFailure(message: "YAML aliases (*name) are not supported in a rules file", mark: mark)
            case YAML_SCALAR_EVENT:
                let s = event.data.scalar
                if s.anchor != nil { throw YAMLFailure(message: "YAML anchors (&name) are not supported in a rules file", mark: mark) }
                let value = String(decoding: UnsafeBufferPointer(start: s.value, count: s.length), as: UTF8.self)
                add(.scalar(value, mark, plain: s.style == YAML_PLAIN_SCALAR_STYLE))
            case YAML_SEQUENCE_START_EVENT:
                if event.data.sequence_start.anchor != nil {
                    throw YAMLFailure(message: "YAML anchors (&name) are not supported in a rules file", mark: mark)
                }
                try push(Open(isMapping: false, mark: mark))
            case YAML_MAPPING_START_EVENT:
                if event.data.mapping_start.anchor != nil {
                    throw YAMLFailure(message: "YAML anchors (&name) are not supported in a rules file", mark: mark)
                }
                try push(Open(isMapping: true, mark: mark))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let open = stack.popLast() else { return }
                add(open.isMapping ? .mapping(open.pairs, open.mark) : .sequence(open.items, open.mark))
            default:
                break
            }
        }

        private mutating func push(_ open: Open) throws(YAMLFailure) {
            guard stack.count < Self.maxDepth else {
                throw YAMLFailure(message: "lists and keys nested more than \(Self.maxDepth) deep; a rules file needs a few levels", mark: open.mark)
            }
            stack.append(open)
        }

        private mutating func add(_ node: YAMLNode) {
            guard !stack.isEmpty else { root = node; return }
            let top = stack.count - 1
            if !stack[top].isMapping {
                stack[top].items.append(node)
            } else if let key = stack[top].pendingKey {
                stack[top].pairs.append((key, node))
                stack[top].pendingKey = nil
            } else {
                stack[top].pendingKey = node
            }
        }
    }
}

/// A YAML syntax problem and where it is.
struct YAMLFailure: Error {
    var message: String
    var mark: YAMLNode.Mark
}
