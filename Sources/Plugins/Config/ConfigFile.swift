internal import Container
internal import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a config file's bytes, refusing what is not a readable regular file of at most
/// ``ConfigLimits/maxFileBytes``, with a message that says which it is.
///
/// The file is opened once and examined through its descriptor (`fstat`), so the checks and
/// the read see the same file; the read stops one byte past the limit, so a huge file (or a
/// device that never ends) costs no more memory than the limit.
enum ConfigFile {
    /// The bytes of the file at `path`; `kind` names it in messages (`config`, `overlay`).
    /// - Throws: ``ConfigError`` with one issue saying why they cannot be read.
    static func contents(of path: String, kind: String = "config") throws(ConfigError) -> [UInt8] {
        // Non-blocking, so that opening a FIFO without a writer does not hang; a regular file
        // reads the same either way.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else { throw failure(path, kind, code: .unreadableFile, openFailure(errno, path)) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw failure(path, kind, code: .unreadableFile, "cannot examine it: \(describe(errno))")
        }
        let fileKind = info.st_mode & S_IFMT
        if fileKind == S_IFDIR { throw failure(path, kind, code: .unreadableFile, directoryProblem(path, kind)) }
        guard fileKind == S_IFREG else {
            throw failure(
                path, kind, code: .unreadableFile,
                "it is \(describe(kind: fileKind)), not a regular file; give the path of a JSON \(kind) file")
        }
        let limit = ConfigLimits.maxFileBytes
        if Int(info.st_size) > limit { throw tooLarge(path, kind, size: "\(info.st_size) bytes") }

        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size) + 1)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(path, kind, code: .unreadableFile, "reading it failed: \(describe(errno))")
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
            // A file may grow after fstat, and some files report no size at all.
            if bytes.count > limit { throw tooLarge(path, kind, size: "more than \(limit) bytes") }
        }
        return bytes
    }

    private static func failure(
        _ path: String, _ kind: String, code: ConfigError.Code, _ reason: String
    ) -> ConfigError {
        ConfigError(
            file: path,
            issues: [
                ConfigError.Issue(
                    code: code, message: "cannot read the \(kind) file: \(reason)",
                    location: ConfigLocation(file: path, line: 1, column: 1))
            ])
    }

    private static func tooLarge(_ path: String, _ kind: String, size: String) -> ConfigError {
        failure(
            path, kind, code: .limitExceeded,
            "it is \(size), over the limit of \(ConfigLimits.maxFileBytes) bytes (16 MiB, "
                + "ConfigLimits.maxFileBytes); is it the right file? Split a config this large into smaller ones")
    }

    private static func openFailure(_ error: Int32, _ path: String) -> String {
        switch error {
        case ENOENT:
            // In an app the working directory means nothing: the fix is the path itself.
            "there is no such file; check the path: in an app, pass an absolute one (a bundle resource's, from "
                + "Bundle.main.url(forResource:withExtension:))"
                + (path.hasPrefix("/")
                    ? ""
                    : "; a relative path starts at the working directory, "
                        + NameRules.escapingControlCharacters(FileManager.default.currentDirectoryPath))
        case EACCES, EPERM:
            "permission denied; make the file (and its folders) readable by this user"
        case ENOTDIR:
            "a part of the path before the file name is not a folder"
        case ELOOP:
            "the path has too many symbolic links (a loop?)"
        default:
            describe(error)
        }
    }

    private static func directoryProblem(_ path: String, _ kind: String) -> String {
        let jsonFiles =
            ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted()
        var message = "it is a directory, not a file; give the path of a JSON \(kind) file"
        if !jsonFiles.isEmpty {
            let shown =
                jsonFiles.prefix(5).map(NameRules.escapingControlCharacters).joined(separator: ", ")
                + (jsonFiles.count > 5 ? ", ..." : "")
            message += " in it (it holds \(shown))"
        }
        return message
    }

    private static func describe(kind: mode_t) -> String {
        switch kind {
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a named pipe (FIFO)"
        case S_IFSOCK: "a socket"
        default: "a special file"
        }
    }

    private static func describe(_ error: Int32) -> String {
        String(cString: strerror(error))
    }
}
