import Container
import ContainerTesting
import Foundation
import Testing

@testable import Plugins

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// iOS behaviour of the `sqlite` provider: the `fileProtection` option, and a database that Data
/// Protection keeps closed (a push launching the app before the device's first unlock) being a
/// transient failure with a remedy. The classification is a function of the result code, the
/// system's error number, whether the file existed and whether the platform has Data Protection,
/// so the iOS answers are tested here on Linux too.
@Suite("SQLite and Data Protection")
struct SQLiteDataProtectionTests {
    static let cantOpen: Int32 = 14
    static let ioErrRead: Int32 = 10 | (1 << 8)

    @Test("On a platform with Data Protection, EPERM or EACCES opening an existing file is protected data")
    func protectedDataIsRecognised() {
        for errno in [EPERM, EACCES] {
            for code in [Self.cantOpen, 10, Self.ioErrRead, 3] {
                #expect(
                    Database.isProtectedDataUnavailable(
                        code: code, systemErrno: errno, fileExisted: true, dataProtection: true),
                    "code \(code), errno \(errno)")
            }
        }
    }

    @Test("Not protected data: a new file, another errno, another result code, or no Data Protection (Linux)")
    func otherFailuresAreNot() {
        // A file that did not exist: Data Protection lets an app create files while locked.
        #expect(
            !Database.isProtectedDataUnavailable(code: 14, systemErrno: EPERM, fileExisted: false, dataProtection: true)
        )
        // A missing folder, a directory: not a protection class.
        for errno in [ENOENT, EISDIR, ENOSPC] {
            #expect(
                !Database.isProtectedDataUnavailable(
                    code: 14, systemErrno: errno, fileExisted: true, dataProtection: true))
        }
        // A busy or damaged database with a stale errno.
        for code: Int32 in [5, 11, 26, 1] {
            #expect(
                !Database.isProtectedDataUnavailable(
                    code: code, systemErrno: EPERM, fileExisted: true, dataProtection: true))
        }
        // Linux and macOS: EACCES on an existing file is a permission problem, permanent.
        #expect(
            !Database.isProtectedDataUnavailable(
                code: 14, systemErrno: EACCES, fileExisted: true, dataProtection: false))
        #expect(
            !Database.isProtectedDataUnavailable(code: 14, systemErrno: EPERM, fileExisted: true, dataProtection: false)
        )
        #if os(Linux)
            #expect(!Database.platformHasDataProtection)
            #expect(!Database.isProtectedDataUnavailable(code: 14, systemErrno: EPERM, fileExisted: true))
        #endif
    }

    @Test("Protected data is transient, and its message says to retry after the unlock and which class to choose")
    func protectedDataIsTransientWithARemedy() {
        let error = DatabaseError(
            code: 14, message: "cannot open: unable to open database file", path: "/data/app.sqlite",
            systemErrno: EPERM, isProtectedDataUnavailable: true)
        #expect(error.failureKind == .transient)
        #expect(error.codeName == "SQLITE_CANTOPEN")
        let description = error.description
        #expect(
            description.hasPrefix(
                "database '/data/app.sqlite': cannot open: unable to open database file [SQLITE_CANTOPEN]; "))
        for phrase in [
            "the failure is transient: a later start() after the device is unlocked tries again",
            "fileProtection completeUntilFirstUserAuthentication", "only none is readable before that first unlock",
        ] {
            #expect(description.contains(phrase), "\(phrase)")
        }
        // The same code without the diagnosis stays what it was: permanent, with its own hint.
        let plain = DatabaseError(code: 14, message: "cannot open", path: "/data/app.sqlite", systemErrno: EPERM)
        #expect(plain.failureKind == .permanent)
        #expect(plain.hint == "check that the folder exists and that this process may create files in it")
    }

    @Test("A database in a missing folder fails to open with the system's errno, permanently")
    func aMissingFolderIsPermanent() throws {
        let path = "/nonexistent-\(UUID().uuidString)/app.sqlite"
        let error = #expect(throws: DatabaseError.self) { _ = try Database(path: path) }
        #expect(error?.code == 14)
        #expect(error?.systemErrno == ENOENT)
        #expect(error?.isProtectedDataUnavailable == false)
        #expect(error?.failureKind == .permanent)
    }

    @Test("An existing file this process may not open is a permanent failure where there is no Data Protection")
    func anUnreadableFileIsPermanentOnLinux() throws {
        // As root the permissions do not refuse anything: a directory in the file's place does.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("app.sqlite").path
        if getuid() == 0 {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        } else {
            #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0]))
        }
        let error = #expect(throws: DatabaseError.self) { _ = try Database(path: path) }
        #expect(error?.code == 14)
        #expect(error?.systemErrno == (getuid() == 0 ? EISDIR : EACCES))
        #expect(error?.isProtectedDataUnavailable == (Database.platformHasDataProtection && getuid() != 0))
        #if os(Linux)
            #expect(error?.failureKind == .permanent)
        #endif
    }

    @Test("fileProtection: the four words load, each opens the database (without effect on Linux)")
    func fileProtectionOption() async throws {
        for protection in SQLiteFileProtection.all {
            let text = """
                { "version": 1, "services": [ { "name": "database", "provider": "sqlite",
                  "options": { "path": ":memory:", "fileProtection": "\(protection.word)" } } ] }
                """
            let config = try ConfigLoader.load(text: text, file: "db.json")
            #expect(try SQLiteOptions(config.specs[0].options).fileProtection == protection)
            let container = ServiceContainer(graph: config.graph)
            let database = try await withTimeout { try await container.start() }[.database]
            #expect(try database.schemaVersion() == 1)
            _ = try await container.shutdown()
        }
        #expect(
            SQLiteFileProtection.all.map(\.word) == [
                "complete", "completeUnlessOpen", "completeUntilFirstUserAuthentication", "none",
            ])
        #if os(Linux)
            for protection in SQLiteFileProtection.all {
                #expect(Database.openFlag(for: protection, path: "/data/app.sqlite") == 0)
            }
        #endif
        #expect(Database.openFlag(for: .complete, path: ":memory:") == 0)
    }

    @Test("A file database with fileProtection is created owner-only, like one without")
    func protectedFileIsOwnerOnly() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("app.sqlite").path
        let database = try Database(path: path, fileProtection: .completeUntilFirstUserAuthentication)
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        try database.close()
    }

    @Test("An unknown fileProtection is a config error at the option, with a suggestion and the known words")
    func unknownFileProtection() throws {
        let text = """
            { "version": 1, "services": [
              { "name": "database", "provider": "sqlite",
                "options": { "path": ":memory:", "fileProtection": "completeUnlesOpen" } }
            ] }
            """
        let error = try #require(loadError(text, file: "db.json"))
        #expect(error.codes == [.invalidOptions])
        #expect(error.issues.first?.option == "fileProtection")
        #expect(
            error.description == """
                db.json:3:56: services[0].options.fileProtection: service 'database' (provider 'sqlite'): option \
                'fileProtection': unknown file protection 'completeUnlesOpen'; did you mean \
                'completeUnlessOpen'? (known: complete, completeUnlessOpen, \
                completeUntilFirstUserAuthentication, none; completeUntilFirstUserAuthentication keeps the database \
                readable by a launch in the background)
                """)
        let wrongType = try #require(
            loadError(
                #"{ "version": 1, "services": [ { "name": "db", "provider": "sqlite", "options": { "path": ":memory:", "fileProtection": true } } ] }"#,
                file: "db.json"))
        #expect(wrongType.issues.first?.option == "fileProtection")
        #expect(
            wrongType.description.contains("option 'fileProtection' must be a string (complete, completeUnlessOpen, "))
    }
}
