import Container
import Foundation
import Plugins
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A config path that is not a readable regular file of at most 16 MiB says what it is.
struct ConfigFileTests {
    private func rejected(path: String, sourceLocation: SourceLocation = #_sourceLocation) -> ConfigError? {
        do {
            _ = try ConfigLoader.load(path: path)
            Issue.record("expected \(path) to be rejected", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    private func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("config-file-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func aDirectorySaysItIsADirectoryAndListsItsConfigs() throws {
        // It used to say "it exists but cannot be read; check its permissions".
        let error = try #require(rejected(path: PackagePaths.configs.path))
        #expect(error.codes == [.unreadableFile])
        #expect(
            error.description
                == "\(PackagePaths.configs.path):1:1: cannot read the config file: it is a directory, not a file; "
                + "give the path of a JSON config file in it (it holds accounts.json, app.json, broken.json, "
                + "launch.json, permanent.json, ...)")
    }

    @Test func aMissingFileAndAMissingFolderAreNamed() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("nope.json").path
        #expect(rejected(path: missing)?.description.contains("there is no such file") == true)
        let file = directory.appendingPathComponent("file.json")
        try Data("{}".utf8).write(to: file)
        let throughFile = rejected(path: file.path + "/inner.json")
        #expect(throughFile?.description.contains("a part of the path before the file name is not a folder") == true)
    }

    @Test func devicesAndPipesAreNotRegularFiles() throws {
        // Reading /dev/zero would never end.
        let device = try #require(rejected(path: "/dev/zero"))
        #expect(
            device.description.hasSuffix(
                "it is a character device, not a regular file; give the path of a JSON config file"))
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("pipe.json").path
        try #require(mkfifo(fifo, 0o600) == 0)
        // Opening a FIFO nobody writes to must not block.
        let pipe = try #require(rejected(path: fifo))
        #expect(pipe.description.contains("it is a named pipe (FIFO), not a regular file"))
    }

    @Test func aFileOverTheSizeLimitIsRejectedWithoutReadingIt() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("huge.json").path
        try #require(FileManager.default.createFile(atPath: path, contents: nil))
        // A sparse file: its size is over the limit, but nothing is written or read.
        try #require(truncate(path, off_t(ConfigLimits.maxFileBytes + 1)) == 0)
        let error = try #require(rejected(path: path))
        #expect(error.codes == [.limitExceeded])
        #expect(
            error.description
                == "\(path):1:1: cannot read the config file: it is 16777217 bytes, over the limit of 16777216 bytes "
                + "(16 MiB, ConfigLimits.maxFileBytes); is it the right file? Split a config this large into smaller "
                + "ones")
    }

    @Test(.enabled(if: geteuid() != 0, "root may read any file"))
    func anUnreadableFileSaysPermissionDenied() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("secret.json").path
        try #require(FileManager.default.createFile(atPath: path, contents: Data("{}".utf8)))
        try #require(chmod(path, 0) == 0)
        #expect(rejected(path: path)?.description.contains("permission denied; make the file") == true)
    }
}
