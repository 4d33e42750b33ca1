/// The newest `limit` items of a stream that may go on for months: once full, each new item takes
/// the place of the oldest, so the memory it holds stays flat.
struct Recent<Element> {
    let limit: Int
    private var items: [Element] = []
    /// Where the next item goes once full (the oldest item's place).
    private var next = 0

    init(limit: Int) { self.limit = max(1, limit) }

    mutating func append(_ item: Element) {
        if items.count < limit {
            items.append(item)
        } else {
            items[next] = item
            next = (next + 1) % limit
        }
    }

    /// Oldest first.
    var all: [Element] { Array(items[next...] + items[..<next]) }
    var count: Int { items.count }
}
