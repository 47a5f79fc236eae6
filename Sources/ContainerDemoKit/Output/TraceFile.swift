import Container
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file `--output` names: opened before the run, so a path that cannot be written is a
/// usage error before anything runs, and written through, so a symbolic link keeps pointing at
/// the file that gets the trace, and a pipe (`--output >(jq .)`) or `/dev/stdout` works.
///
/// Nothing is lost before the trace is ready: an existing file keeps its content until
/// ``write(_:)`` replaces it, and a file the demo created is removed by ``discard()``.
final class TraceFile {
    let path: String
    private let descriptor: Int32
    private let created: Bool

    /// Opens (or creates) `path` for writing.
    ///
    /// - Throws: ``TraceFileProblem``, saying why it cannot and what to do.
    static func open(_ path: String) throws(TraceFileProblem) -> TraceFile {
        let existed = access(path, F_OK) == 0
        let descriptor = systemOpen(path)
        guard descriptor >= 0 else { throw TraceFileProblem(path: path) }
        return TraceFile(path: path, descriptor: descriptor, created: !existed)
    }

    private init(path: String, descriptor: Int32, created: Bool) {
        self.path = path
        self.descriptor = descriptor
        self.created = created
    }

    /// Replaces the file's content with `text` (a pipe or a device gets it appended); `false`
    /// when the system refused.
    func write(_ text: String) -> Bool {
        var info = stat()
        if fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG {
            guard ftruncate(descriptor, 0) == 0 else { return false }
        }
        return Array(text.utf8).withUnsafeBytes { bytes in
            guard var next = bytes.baseAddress else { return true }
            var left = bytes.count
            while left > 0 {
                let count = systemWrite(descriptor, next, left)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                next += count
                left -= count
            }
            return true
        }
    }

    /// Closes the file without writing; removes it when the demo created it.
    func discard() {
        if created { unlink(path) }
    }

    deinit { close(descriptor) }
}

/// `open(2)` of `path` for writing, created when missing (at file scope: the type's own
/// `open` and `write` would shadow the system's).
private func systemOpen(_ path: String) -> Int32 { open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644) }

/// `write(2)`.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// Why `--output path` cannot be written, with the fix.
struct TraceFileProblem: Error, CustomStringConvertible {
    let path: String

    /// The message, its control characters (of the path, quoted twice) as `\u{…}` escapes.
    var description: String {
        NameRules.escapingControlCharacters("container-demo: cannot write the trace to '\(path)': \(reason)")
    }

    private var reason: String {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            return "it is a folder; give a file's path, e.g. \((path as NSString).appendingPathComponent("trace.txt"))"
        }
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
            return "its folder '\(folder)' does not exist; create it or choose another path"
        }
        return "check that the file and its folder are writable"
    }
}
