internal import CSQLite
import Foundation
import LookCore
import Platform

/// What SQLite said when a call failed: its result code and its own words.
public struct SQLiteError: Error, CustomStringConvertible {
    public let code: Int32
    public let message: String

    /// The database is not one (a file overwritten, cut short), or damaged.
    public var isCorrupt: Bool { code & 0xFF == SQLITE_CORRUPT || code & 0xFF == SQLITE_NOTADB }
    /// Another connection holds the lock past the busy timeout.
    public var isLocked: Bool { code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED }
    /// A failure the same write may not meet again (a lock, a full disk, an I/O error, a file that
    /// cannot be opened now); any other (a damaged file, a constraint) it would meet every time.
    public var isPassing: Bool { isLocked || [SQLITE_FULL, SQLITE_IOERR, SQLITE_CANTOPEN].contains(code & 0xFF) }
    public var description: String { "\(message) (SQLite code \(code))" }
}

/// SQLite's destructor argument that makes it copy a bound text at once.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One open SQLite database (`sqlite3 *`), closed with its owner.
final class SQLiteDatabase {
    private let handle: OpaquePointer

    /// Opens (or creates) the database at `path`, with extended result codes and a busy timeout.
    init(path: String, readOnly: Bool = false, busyMilliseconds: Int32 = 2000) throws(SQLiteError) {
        if !readOnly {
            do throws(SafeFile.Failure) { try SafePath.check(path) } catch {
                throw SQLiteError(code: SQLITE_CANTOPEN, message: "\(path) cannot be opened: \(error.reason)")
            }
        }
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_FULLMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            var message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            // SQLite's "unable to open database file" says nothing of why; the system's errno does.
            if let db, sqlite3_system_errno(db) != 0 { message += ": \(String(cString: strerror(sqlite3_system_errno(db))))" }
            sqlite3_close_v2(db)
            throw SQLiteError(code: rc, message: message)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyMilliseconds)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs `sql` (one or more statements, no parameters).
    func execute(_ sql: String) throws(SQLiteError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc) }
    }

    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(rc) }
        return SQLiteStatement(statement, database: self)
    }

    var lastRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    func error(_ rc: Int32) -> SQLiteError { SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle))) }
}

/// One prepared statement (`sqlite3_stmt *`), finalized with its owner.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private let database: SQLiteDatabase

    fileprivate init(_ handle: OpaquePointer, database: SQLiteDatabase) { (self.handle, self.database) = (handle, database) }

    deinit { sqlite3_finalize(handle) }

    /// A value to bind, by its type.
    enum Value {
        case int(Int64)
        case real(Double)
        case text(String)
        case null
    }

    /// Binds `values` to the parameters in order (from 1).
    func bind(_ values: [Value]) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (i, value) in values.enumerated() {
            let n = Int32(i + 1)
            let rc: Int32
            switch value {
            case .int(let v): rc = sqlite3_bind_int64(handle, n, v)
            case .real(let v): rc = sqlite3_bind_double(handle, n, v)
            case .text(let v): rc = sqlite3_bind_text(handle, n, v, -1, transient)
            case .null: rc = sqlite3_bind_null(handle, n)
            }
            guard rc == SQLITE_OK else { throw database.error(rc) }
        }
    }

    /// Steps once: true while a row is there, false when done.
    func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw database.error(rc)
    }

    func int(_ column: Int32) -> Int64? { sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, column) }
    func real(_ column: Int32) -> Double? { sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_double(handle, column) }
    func text(_ column: Int32) -> String? { sqlite3_column_text(handle, column).map { String(cString: $0) } }
}
