/// What can go wrong writing a record; each description is a sentence a user reads.
public enum RecordsError: Error, CustomStringConvertible, Equatable {
    case cannotOpen(what: String, path: String, reason: String)
    case cannotWrite(what: String, path: String, reason: String)
    /// `lookd status` found no status file in any of these places.
    case noStatus(String)
    /// `lookd status NAME` found no status file for that instance (`known`: those that have one).
    case noInstance(name: String, path: String, known: [String])
    /// A name that cannot be an instance's (`lookd status ../x`).
    case badInstance(String)

    /// Whether the user's words were at fault (exit 2), not the machine's state.
    public var isBadInput: Bool { if case .badInstance = self { true } else { false } }

    public var description: String {
        switch self {
        case .cannotOpen(let what, let path, let reason): return "The \(what) \(path) cannot be opened: \(reason)."
        case .cannotWrite(let what, let path, let reason): return "The \(what) \(path) could not be written: \(reason)."
        case .noStatus(let places): return "No lookd watch is running here: no status file at \(places)."
        case .badInstance(let name): return "an instance's name is letters, digits, - and _ (lookd@NAME), not \"\(name)\""
        case .noInstance(let name, let path, let known):
            let list = known.isEmpty ? "none has a status file" : "those with a status file: \(known.joined(separator: ", "))"
            return "No instance \(name): \(path) does not exist (\(list))."
        }
    }
}
