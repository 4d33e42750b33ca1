import Foundation
import LookCore
import Media

/// What the page shows, as the loop last left it: the status, the picture the model answered, the
/// latest fires; and the event streams' readers. The loop only stores and signals here; encoding
/// the picture and writing to readers happen on the readers' own threads.
final class WebState: @unchecked Sendable {
    /// One reader of `/api/events`: the newest events, at most `capacity` waiting (older ones are
    /// dropped for a reader that does not keep up).
    final class Reader: @unchecked Sendable {
        let capacity = 8
        private let condition = NSCondition()
        private var waiting: [String] = []
        private var closed = false
        private(set) var dropped = 0

        func push(_ event: String) {
            condition.withLock {
                if waiting.count >= capacity {
                    waiting.removeFirst()
                    dropped += 1
                }
                waiting.append(event)
                condition.signal()
            }
        }

        func close() {
            condition.withLock {
                closed = true
                condition.broadcast()
            }
        }

        /// The next event, a keep-alive comment after `idle` seconds (so that a reader gone away is
        /// found, and its connection freed, within that), or nil once closed.
        func next(idle: Double = 2) -> String? {
            condition.withLock {
                while waiting.isEmpty && !closed {
                    if !condition.wait(slice: idle) { return ": still here\n\n" }
                }
                if closed { return nil }
                return waiting.removeFirst()
            }
        }
    }

    private let lock = NSLock()
    private var status = "{}"
    private var picture: (index: Int, image: RGBImage)?
    private var jpeg: (index: Int, bytes: [UInt8])?
    private var fires: [String] = []
    private var fireNumbers: [Int] = []
    private var readers: [ObjectIdentifier: Reader] = [:]
    /// The server's streams, which this page's readers draw on (shared by a house's pages).
    let slots: StreamSlots

    init(slots: StreamSlots = StreamSlots()) { self.slots = slots }

    /// The status JSON (the status file's), as written after each frame, fire and reload.
    func status(_ json: JSON) {
        let text = json.text()
        broadcast("status", text) { status = text }
    }

    /// The picture the model answered on frame `index`.
    func frame(_ index: Int, _ image: RGBImage) {
        broadcast("frame", "{\"frame\":\(index)}") { picture = (index, image) }
    }

    /// A fire (its JSON as it left lookd, and what its row shows); the same fire again (with its
    /// description) takes its place.
    func fire(_ json: JSON) {
        let text = json.text()
        let number: Int? = {
            if case .object(let f) = json, case .int(let n)? = f.first(where: { $0.0 == "fire" })?.1 { return n } else { return nil }
        }()
        broadcast("fire", text) {
            if let number, let i = fireNumbers.firstIndex(of: number) {
                fires[i] = text
                return
            }
            fires.append(text)
            fireNumbers.append(number ?? -1)
            if fires.count > 12 {
                fires.removeFirst(fires.count - 12)
                fireNumbers.removeFirst(fireNumbers.count - 12)
            }
        }
    }

    private func broadcast(_ event: String, _ data: String, update: () -> Void) {
        let targets = lock.withLock { () -> [Reader] in
            update()
            return Array(readers.values)
        }
        let message = "event: \(event)\ndata: \(data)\n\n"
        for reader in targets { reader.push(message) }
    }

    var statusText: String { lock.withLock { status } }
    /// The number of the frame whose picture `/frame.jpg` serves, once there is one.
    var frameIndex: Int? { lock.withLock { picture?.index } }
    /// What the page starts from: `{"status":…,"fires":[…],"frame":N}`.
    var pageState: String {
        lock.withLock { "{\"status\":\(status),\"fires\":[\(fires.joined(separator: ","))],\"frame\":\(picture.map { String($0.index) } ?? "null")}" }
    }
    var firesText: String { lock.withLock { "[" + fires.joined(separator: ",") + "]" } }

    /// The latest picture as JPEG, encoded once per frame, on the asking reader's thread.
    func frameJPEG() -> [UInt8]? {
        guard let picture = lock.withLock({ picture }) else { return nil }
        if let cached = lock.withLock({ jpeg }), cached.index == picture.index { return cached.bytes }
        guard let data = try? JPEGWriter.encode(picture.image) else { return nil }
        let bytes = [UInt8](data)
        lock.withLock { jpeg = (picture.index, bytes) }
        return bytes
    }

    /// A new reader, first given the status and the fires so far; nil when the server's streams are all open.
    func subscribe() -> Reader? {
        let reader = Reader()
        let (ok, status, fires, frame) = lock.withLock { () -> (Bool, String, [String], Int?) in
            guard slots.take() else { return (false, "", [], nil) }
            readers[ObjectIdentifier(reader)] = reader
            return (true, self.status, self.fires, picture?.index)
        }
        guard ok else { return nil }
        reader.push("event: status\ndata: \(status)\n\n")
        for fire in fires.suffix(reader.capacity - 2) { reader.push("event: fire\ndata: \(fire)\n\n") }
        if let frame { reader.push("event: frame\ndata: {\"frame\":\(frame)}\n\n") }
        return reader
    }

    func unsubscribe(_ reader: Reader) {
        if lock.withLock({ readers.removeValue(forKey: ObjectIdentifier(reader)) }) != nil { slots.give() }
    }

    /// Ends every stream (the watch is stopping).
    func closeAll() {
        let all = lock.withLock { () -> [Reader] in
            defer { readers.removeAll() }
            return Array(readers.values)
        }
        for reader in all { reader.close() }
    }
}
