import Foundation

/// The key–value header of a GGUF file, read without llama.cpp, so that lookd can say what is wrong
/// with a file (not a GGUF, which architecture, which projector) before handing it to the engine.
/// Scalar and string values are kept, and integer arrays of at most 16 items (rope sections); longer
/// arrays (vocabularies) are skipped. The tensor list follows: names, types and element counts.
public struct GGUFMetadata: Sendable {
    public enum Value: Sendable, Equatable {
        case int(Int64), uint(UInt64), float(Double), bool(Bool), string(String), ints([Int64])
    }

    /// One tensor's entry in the header: its name, ggml type number and number of elements.
    public struct Tensor: Sendable, Equatable {
        public let name: String
        public let type: UInt32
        public let elements: UInt64
    }

    public let version: UInt32
    public let values: [String: Value]
    /// The tensors the header lists (empty when the header ends before them).
    public let tensors: [Tensor]
    /// The number of items in each array that was skipped (the vocabulary's `tokenizer.ggml.tokens`).
    public let arrayCounts: [String: Int]

    public func string(_ key: String) -> String? {
        if case .string(let s)? = values[key] { return s }
        return nil
    }

    public func integer(_ key: String) -> Int? {
        switch values[key] {
        case .int(let v)?: return Int(v)
        case .uint(let v)?: return Int(v)
        default: return nil
        }
    }

    public func integers(_ key: String) -> [Int]? {
        if case .ints(let v)? = values[key] { return v.map { Int($0) } }
        return nil
    }

    public enum ReadError: Error, Equatable {
        case missing, notAFile, unreadable, notGGUF(magic: [UInt8]), truncated
    }

    /// Reads the header of the file at `path`.
    /// A folder, a device or a pipe is refused before it is read (a pipe could block for ever).
    public static func read(path: String) throws(ReadError) -> GGUFMetadata {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { throw .missing }
        guard attributes[.type] as? FileAttributeType == .typeRegular else { throw .notAFile }
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { throw .unreadable }
        return try parse(data)
    }

    /// Parses a header from bytes; total: bad or short input throws, never traps.
    public static func parse(_ data: Data) throws(ReadError) -> GGUFMetadata {
        var r = Reader(data: data)
        guard let magic = r.bytes(4) else { throw .notGGUF(magic: Array(data.prefix(4))) }
        guard magic == Array("GGUF".utf8) else { throw .notGGUF(magic: magic) }
        guard let version = r.u32(), let tensorCount = r.u64(), let count = r.u64() else { throw .truncated }
        var values: [String: Value] = [:]
        var arrayCounts: [String: Int] = [:]
        for _ in 0..<min(count, 1 << 20) {
            guard let key = r.string(), let type = r.u32() else { throw .truncated }
            if let value = try r.value(type: type) {
                values[key] = value
            } else {
                arrayCounts[key] = r.lastArrayCount
            }
        }
        var tensors: [Tensor] = []
        for _ in 0..<min(tensorCount, 1 << 20) {
            guard let tensor = r.tensor() else { break } // a header cut short still gives its keys
            tensors.append(tensor)
        }
        return GGUFMetadata(version: version, values: values, tensors: tensors, arrayCounts: arrayCounts)
    }

    private struct Reader {
        let data: Data
        var offset: Int
        /// The length of the last array `value(type:)` skipped.
        var lastArrayCount = 0
        init(data: Data) { self.data = data; self.offset = data.startIndex }

        mutating func bytes(_ n: Int) -> [UInt8]? {
            guard n >= 0, offset + n <= data.endIndex else { return nil }
            defer { offset += n }
            return Array(data[offset..<(offset + n)])
        }
        mutating func skip(_ n: UInt64) -> Bool {
            guard n <= UInt64(data.endIndex - offset) else { return false }
            offset += Int(n)
            return true
        }
        mutating func little<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard let b = bytes(MemoryLayout<T>.size) else { return nil }
            let value = b.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return T(truncatingIfNeeded: value)
        }
        mutating func u32() -> UInt32? { little(UInt32.self) }
        mutating func u64() -> UInt64? { little(UInt64.self) }
        mutating func string() -> String? {
            guard let n = u64(), n <= UInt64(data.endIndex - offset), let b = bytes(Int(n)) else { return nil }
            return String(decoding: b, as: UTF8.self)
        }

        mutating func tensor() -> Tensor? {
            guard let name = string(), let dims = u32(), dims <= 8 else { return nil }
            var elements: UInt64 = 1
            for _ in 0..<dims {
                guard let d = u64() else { return nil }
                elements = elements.multipliedReportingOverflow(by: d).overflow ? .max : elements * d
            }
            guard let type = u32(), u64() != nil else { return nil }
            return Tensor(name: name, type: type, elements: elements)
        }

        static let sizes: [UInt32: UInt64] = [0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8]

        mutating func value(type: UInt32) throws(ReadError) -> Value? {
            switch type {
            case 0: guard let v = little(UInt8.self) else { throw .truncated }; return .uint(UInt64(v))
            case 1: guard let v = little(Int8.self) else { throw .truncated }; return .int(Int64(v))
            case 2: guard let v = little(UInt16.self) else { throw .truncated }; return .uint(UInt64(v))
            case 3: guard let v = little(Int16.self) else { throw .truncated }; return .int(Int64(v))
            case 4: guard let v = u32() else { throw .truncated }; return .uint(UInt64(v))
            case 5: guard let v = little(Int32.self) else { throw .truncated }; return .int(Int64(v))
            case 6: guard let v = u32() else { throw .truncated }; return .float(Double(Float(bitPattern: v)))
            case 7: guard let v = little(UInt8.self) else { throw .truncated }; return .bool(v != 0)
            case 8: guard let s = string() else { throw .truncated }; return .string(s)
            case 10: guard let v = u64() else { throw .truncated }; return .uint(v)
            case 11: guard let v = little(Int64.self) else { throw .truncated }; return .int(v)
            case 12: guard let v = u64() else { throw .truncated }; return .float(Double(bitPattern: v))
            case 9:
                guard let itemType = u32(), let n = u64() else { throw .truncated }
                lastArrayCount = Int(clamping: n)
                if itemType == 8 {
                    for _ in 0..<n { guard let len = u64(), skip(len) else { throw .truncated } }
                } else if n <= 16, [1, 3, 5, 11, 0, 2, 4, 10].contains(itemType) {
                    var items: [Int64] = []
                    for _ in 0..<n {
                        guard case let item? = try value(type: itemType) else { throw .truncated }
                        switch item {
                        case .int(let v): items.append(v)
                        case .uint(let v): items.append(Int64(truncatingIfNeeded: v))
                        default: throw .truncated
                        }
                    }
                    return .ints(items)
                } else if let size = Self.sizes[itemType] {
                    guard n <= UInt64.max / size, skip(n * size) else { throw .truncated }
                } else {
                    throw .truncated // nested arrays do not occur in model headers
                }
                return nil
            default:
                throw .truncated
            }
        }
    }
}
