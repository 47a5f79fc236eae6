public import Container

/// A SQLite call failed.
///
/// Classified by SQLite's result code: a busy or locked database, an interrupted statement and
/// I/O errors are transient (another connection may be holding the file; a later `start()`
/// tries again); everything else (a bad path, bad SQL in a migration, a corrupt file, a closed
/// database) is permanent, but for one case: on iOS, tvOS, watchOS and visionOS, a file that
/// Data Protection keeps unreadable while the device is locked (or before its first unlock)
/// cannot be opened yet, which is transient (``isProtectedDataUnavailable``). ``hint`` says how
/// to recover; ``description`` includes it.
///
/// ```text
/// database '/data/app.sqlite': cannot prepare statement: file is not a database [SQLITE_NOTADB]; the file
/// is damaged or is not a SQLite database: restore it from a backup, or move it away together with its
/// -wal and -shm files so that the next start creates an empty one (then reset())
/// ```
public struct DatabaseError: ClassifiedError, Sendable, CustomStringConvertible {
    /// SQLite's primary result code (`SQLITE_BUSY` is 5), or -1 for errors of this wrapper.
    public let code: Int32
    /// What happened, with SQLite's own message (withheld for a secret migration).
    public let message: String
    /// The database file.
    public let path: String
    /// The system's error number of the call that failed (SQLite's `sqlite3_system_errno`),
    /// when opening the database failed; `nil` otherwise.
    public let systemErrno: Int32?
    /// Whether the file exists but the system refused to open it because its Data Protection
    /// class keeps it unreadable for now: the device is locked, or has not been unlocked since
    /// it started (a push notification or a background task can launch the app then). Transient:
    /// the same open succeeds once the device is unlocked. Only reported on platforms with Data
    /// Protection for an app's files (iOS, tvOS, watchOS, visionOS; not the simulator or Mac
    /// Catalyst); elsewhere such an error is a permission problem, and permanent.
    public let isProtectedDataUnavailable: Bool

    /// Creates an error.
    public init(
        code: Int32, message: String, path: String, systemErrno: Int32? = nil, isProtectedDataUnavailable: Bool = false
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.systemErrno = systemErrno
        self.isProtectedDataUnavailable = isProtectedDataUnavailable
    }

    /// Transient for `SQLITE_BUSY` (5), `SQLITE_LOCKED` (6), `SQLITE_INTERRUPT` (9),
    /// `SQLITE_IOERR` (10) and a file Data Protection keeps closed for now
    /// (``isProtectedDataUnavailable``); otherwise permanent.
    public var failureKind: FailureKind {
        if isProtectedDataUnavailable { return .transient }
        switch code & 0xFF {
        case 5, 6, 9, 10: return .transient
        default: return .permanent
        }
    }

    /// The name of SQLite's result code, e.g. `SQLITE_BUSY`; `nil` for this wrapper's own errors.
    public var codeName: String? {
        guard code >= 0 else { return nil }
        let primary = Int(code & 0xFF)
        if primary < Self.codeNames.count { return "SQLITE_" + Self.codeNames[primary] }
        return primary == 100 ? "SQLITE_ROW" : primary == 101 ? "SQLITE_DONE" : "SQLite result code \(code)"
    }

    /// How to recover, by result code; `nil` when the message says enough.
    public var hint: String? {
        if isProtectedDataUnavailable { return Self.protectedDataHint }
        return switch code & 0xFF {
        case 5, 6:
            "another connection holds a lock on the database; the failure is transient: a later start() tries "
                + "again (raise the sqlite service's busyTimeoutMs to wait longer)"
        case 9: "the work was interrupted (cancelled); the failure is transient: a later start() tries again"
        case 10: "an I/O error; the failure is transient: a later start() tries again"
        case 11, 26:
            "the file is damaged or is not a SQLite database: restore it from a backup, or move it away together "
                + "with its -wal and -shm files so that the next start creates an empty one (then reset())"
        case 3, 8: "check that the file and its folder are writable by this process"
        case 13: "the disk is full; free some space, then reset()"
        case 14: "check that the folder exists and that this process may create files in it"
        default: nil
        }
    }

    /// `database 'path': message [SQLITE_X]; hint`.
    public var description: String {
        var text = "database '\(path)': \(message)"
        if let codeName { text += " [\(codeName)]" }
        if let hint { text += "; " + hint }
        return text
    }

    /// The remedy for a file Data Protection keeps closed for now.
    static let protectedDataHint =
        "the file exists, but the system refused to open it: its Data Protection class keeps it unreadable "
        + "while the device is locked or until its first unlock after it started (a push notification or a "
        + "background task can launch the app then); the failure is transient: a later start() after the device "
        + "is unlocked tries again. For a database that such a launch must read while the device is locked, give "
        + "the sqlite service the fileProtection completeUntilFirstUserAuthentication (readable once the device "
        + "was unlocked after it started; only none is readable before that first unlock)"

    /// Primary result codes 0 to 28, by number.
    private static let codeNames = [
        "OK", "ERROR", "INTERNAL", "PERM", "ABORT", "BUSY", "LOCKED", "NOMEM", "READONLY", "INTERRUPT", "IOERR",
        "CORRUPT", "NOTFOUND", "FULL", "CANTOPEN", "PROTOCOL", "EMPTY", "SCHEMA", "TOOBIG", "CONSTRAINT", "MISMATCH",
        "MISUSE", "NOLFS", "AUTH", "FORMAT", "RANGE", "NOTADB", "NOTICE", "WARNING",
    ]
}
