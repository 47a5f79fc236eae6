public import Container

/// A SQLite call failed.
///
/// Classified by SQLite's result code: a busy or locked database and I/O errors are
/// transient (another process may be holding the file); everything else (a bad path,
/// bad SQL in a migration, a closed database) is permanent.
public struct DatabaseError: ClassifiedError, Sendable, CustomStringConvertible {
    /// SQLite's primary result code (`SQLITE_BUSY` is 5), or -1 for errors of this wrapper.
    public let code: Int32
    /// What happened, with SQLite's own message.
    public let message: String
    /// The database file.
    public let path: String

    /// Creates an error.
    public init(code: Int32, message: String, path: String) {
        self.code = code
        self.message = message
        self.path = path
    }

    /// Transient for `SQLITE_BUSY` (5), `SQLITE_LOCKED` (6) and `SQLITE_IOERR` (10); otherwise permanent.
    public var failureKind: FailureKind {
        switch code & 0xFF {
        case 5, 6, 10: .transient
        default: .permanent
        }
    }

    /// `database 'path': message`.
    public var description: String { "database '\(path)': \(message)" }
}
