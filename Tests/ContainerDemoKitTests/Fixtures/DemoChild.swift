import Container
import ContainerTesting
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The built `container-demo` binary, run as a child process whose standard output is read line
/// by line as it comes (the demo writes `--trace jsonl` as it happens).
///
/// `swift test` builds the binary with the tests (as `swift build --build-tests` does); it is
/// looked up next to the test bundle, then in the repository's `.build/debug`, or taken from
/// `CONTAINER_DEMO_BINARY`.
// Process is not Sendable; every access after `run()` is a read of its exit status, after the
// termination gate opened (which orders it after the process's own writes).
final class DemoChild: @unchecked Sendable {
    private let process = Process()
    /// Standard output, line by line as it comes.
    let output = LineLog()
    /// Standard error, line by line as it comes.
    let errors = LineLog()
    private let errorText = Locked("")
    /// Opens when the process has exited.
    let exited = Gate()

    /// Starts `container-demo arguments` in `folder`, with `environment` added to this process's.
    init(_ arguments: [String], in folder: String, environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: try Self.binary())
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        process.currentDirectoryURL = URL(fileURLWithPath: folder, isDirectory: true)
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        // Each pipe is read to its end by a thread of its own with blocking reads, not with
        // `readabilityHandler`: on Linux, Foundation sometimes never calls that handler at the end
        // of a child's output (swift-corelibs-foundation issue 3275), and a wait for the end
        // then times out although the child has exited.
        PipeReader.start(outputPipe.fileHandleForReading, name: "DemoChild stdout", receive: Self.lines(into: output))
        let errorText = self.errorText
        let errorLines = Self.lines(into: errors)
        PipeReader.start(errorPipe.fileHandleForReading, name: "DemoChild stderr") { data in
            errorText.withLock { $0 += String(decoding: data, as: UTF8.self) }
            errorLines(data)
        }
        let exited = self.exited
        process.terminationHandler = { _ in exited.open() }
        try process.run()
    }

    /// A pipe reader's handler that appends each complete line to `log` (the last one at the end).
    private static func lines(into log: LineLog) -> (Data) -> Void {
        var pending = Data()
        return { data in
            pending.append(data)
            var complete: [String] = []
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                complete.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending.removeSubrange(pending.startIndex...newline)
            }
            if data.isEmpty && !pending.isEmpty {
                complete.append(String(decoding: pending, as: UTF8.self))
                pending.removeAll()
            }
            log.append(complete, closed: data.isEmpty)
        }
    }

    /// The child's process id.
    var pid: Int32 { process.processIdentifier }

    /// Sends `signal` to the child.
    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// What the child wrote to standard error so far.
    var standardError: String { errorText.withLock { $0 } }

    /// The exit status, once ``exited`` opened: `nil` if the child was killed by a signal
    /// (it must catch them and exit by itself).
    var exitStatus: Int32? {
        process.terminationReason == .exit ? process.terminationStatus : nil
    }

    /// Stops the child if it still runs (a failed test must not leave it behind).
    func stop() { if process.isRunning { process.terminate() } }

    /// The path of the built `container-demo`.
    static func binary() throws -> String {
        if let path = ProcessInfo.processInfo.environment["CONTAINER_DEMO_BINARY"] { return path }
        // Linux: the test runner is the `.xctest` executable in the build products folder;
        // macOS: the `.xctest` bundle is there.
        var folders = [URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()]
        folders += Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }.map {
            $0.bundleURL.deletingLastPathComponent()
        }
        folders.append(RepositoryPaths.root.appendingPathComponent(".build/debug"))
        for folder in folders {
            let candidate = folder.appendingPathComponent("container-demo").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw MissingBinary(searched: folders.map(\.path))
    }

    struct MissingBinary: Error, CustomStringConvertible {
        let searched: [String]
        var description: String {
            "container-demo is not built (looked in \(searched.joined(separator: ", "))); `swift test` and "
                + "`swift build --build-tests` build it, or set CONTAINER_DEMO_BINARY to its path"
        }
    }
}

/// Lines of a stream as they arrive, with waits for a condition on them (no polling, no sleep).
final class LineLog: Sendable {
    private struct Watch {
        let condition: @Sendable (_ lines: [String], _ closed: Bool) -> Bool
        let gate: Gate
    }

    private struct State {
        var lines: [String] = []
        var closed = false
        var watches: [Watch] = []
    }

    private let state = Locked(State())

    /// Every line so far.
    var lines: [String] { state.withLock { $0.lines } }

    /// Adds `lines`; `closed` when the stream ended. Opens the waits whose condition now holds.
    func append(_ lines: [String], closed: Bool) {
        let ready = state.withLock { state -> [Gate] in
            state.lines += lines
            state.closed = state.closed || closed
            let (all, ended) = (state.lines, state.closed)
            var ready: [Gate] = []
            state.watches.removeAll { watch in
                guard watch.condition(all, ended) else { return false }
                ready.append(watch.gate)
                return true
            }
            return ready
        }
        for gate in ready { gate.open() }
    }

    /// Suspends until `condition` holds for the lines so far (and whether the stream ended).
    /// - Throws: ``TimedOut`` after `timeout`.
    func wait(
        for what: String, timeout: Duration = .seconds(60),
        until condition: @escaping @Sendable (_ lines: [String], _ closed: Bool) -> Bool
    ) async throws {
        let gate = Gate()
        let holds = state.withLock { state in
            if condition(state.lines, state.closed) { return true }
            state.watches.append(Watch(condition: condition, gate: gate))
            return false
        }
        if holds { return }
        do {
            try await gate.wait(timeout: timeout)
        } catch {
            throw LineWaitTimedOut(what: what, lines: lines)
        }
    }

    /// Suspends until the stream ended.
    func waitForEnd(timeout: Duration = .seconds(60)) async throws {
        try await wait(for: "the end of the output", timeout: timeout) { _, closed in closed }
    }

    struct LineWaitTimedOut: Error, CustomStringConvertible {
        let what: String
        let lines: [String]
        var description: String { "timed out waiting for \(what); lines so far:\n" + lines.joined(separator: "\n") }
    }
}
