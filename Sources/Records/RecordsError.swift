/// What can go wrong writing a record; each description is a sentence a user reads.
public enum RecordsError: Error, CustomStringConvertible, Equatable {
    case cannotOpen(what: String, path: String, reason: String)
    case cannotWrite(what: String, path: String, reason: String)
    /// `lookd status` found no status file in any of these places.
    case noStatus(String)

    public var description: String {
        switch self {
        case .cannotOpen(let what, let path, let reason): return "The \(what) \(path) cannot be opened: \(reason)."
        case .cannotWrite(let what, let path, let reason): return "The \(what) \(path) could not be written: \(reason)."
        case .noStatus(let places): return "No lookd watch is running here: no status file at \(places)."
        }
    }
}
