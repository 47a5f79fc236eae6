// Apple SDKs ship SQLite as the `SQLite3` module; elsewhere the `CSQLite` system library.
#if canImport(SQLite3)
    internal import SQLite3
#else
    internal import CSQLite
#endif

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

// Data Protection of the database's files (the `fileProtection` option), and recognising a file
// it keeps closed for now. Both only where an app's files have Data Protection: an iOS-family
// device. The simulator and Mac Catalyst have none, and macOS refuses files with EPERM for other
// reasons (the sandbox, privacy settings), which retrying does not fix.
extension Database {
    /// Whether this platform protects an app's files with Data Protection classes.
    static var platformHasDataProtection: Bool {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            #if targetEnvironment(simulator) || targetEnvironment(macCatalyst)
                return false
            #else
                return true
            #endif
        #else
            return false
        #endif
    }

    /// The `SQLITE_OPEN_FILEPROTECTION_*` flag of `protection` for a database file at `path`,
    /// or 0: when none is asked for, for an in-memory or temporary database, and where the
    /// platform has no Data Protection (the option is then checked and has no effect).
    static func openFlag(for protection: SQLiteFileProtection?, path: String) -> Int32 {
        guard let protection, platformHasDataProtection, isFile(path) else { return 0 }
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            // Apple's SQLite only: the flags are not part of SQLite's public sources.
            switch protection {
            case .complete: return SQLITE_OPEN_FILEPROTECTION_COMPLETE
            case .completeUnlessOpen: return SQLITE_OPEN_FILEPROTECTION_COMPLETEUNLESSOPEN
            case .completeUntilFirstUserAuthentication:
                return SQLITE_OPEN_FILEPROTECTION_COMPLETEUNTILFIRSTUSERAUTHENTICATION
            default: return SQLITE_OPEN_FILEPROTECTION_NONE
            }
        #else
            return 0
        #endif
    }

    /// Whether a failed open (`code`, with the system's `systemErrno`) of a file that existed
    /// before is Data Protection keeping the file closed for now.
    ///
    /// The system answers `EPERM` (or `EACCES`) when a protected file's key is not available:
    /// SQLite then reports `SQLITE_CANTOPEN` when opening, `SQLITE_IOERR` (or `SQLITE_PERM`)
    /// when a later read or write of its files is refused. A file that did not exist is never
    /// this case (a new file can be created while the device is locked), and on a platform
    /// without Data Protection (`dataProtection` false) the same errors are permission problems.
    static func isProtectedDataUnavailable(
        code: Int32, systemErrno: Int32, fileExisted: Bool, dataProtection: Bool = platformHasDataProtection
    ) -> Bool {
        guard dataProtection, fileExisted else { return false }
        switch code & 0xFF {
        case SQLITE_CANTOPEN, SQLITE_IOERR, SQLITE_PERM: return systemErrno == EPERM || systemErrno == EACCES
        default: return false
        }
    }

    /// Whether `path` names a file (not `:memory:`, `""`, a private temporary database, or a
    /// `file:` URI, which this package does not open).
    static func isFile(_ path: String) -> Bool {
        !path.isEmpty && path != ":memory:" && !path.hasPrefix("file:")
    }

    /// Whether something exists at `path` (before SQLite or this package creates it).
    static func exists(_ path: String) -> Bool {
        isFile(path) && access(path, F_OK) == 0
    }
}
