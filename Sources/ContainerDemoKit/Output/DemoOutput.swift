import Container
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the demo writes: standard output, standard error, and whether colours are welcome.
///
/// The command line uses ``standard(environment:)``; tests use ``CapturedOutput`` to run the
/// demo in-process and read what it printed.
public struct DemoOutput: Sendable {
    /// Receives text meant for standard output.
    public var write: @Sendable (String) -> Void
    /// Receives text meant for standard error.
    public var writeError: @Sendable (String) -> Void
    /// Whether standard output is a terminal that wants ANSI colours.
    public var colors: Bool

    /// An output that hands text to the given closures.
    public init(
        colors: Bool = false, write: @escaping @Sendable (String) -> Void,
        writeError: @escaping @Sendable (String) -> Void
    ) {
        self.colors = colors
        self.write = write
        self.writeError = writeError
    }

    /// The process's standard output and error; colours only when standard output is a
    /// terminal (`isatty(1)`) and `NO_COLOR` is unset or empty (https://no-color.org).
    public static func standard() -> DemoOutput {
        let colors = wantsColors(isTerminal: isatty(1) != 0, noColor: getenv("NO_COLOR").map { String(cString: $0) })
        return DemoOutput(
            colors: colors,
            write: { text in FileHandle.standardOutput.write(Data(text.utf8)) },
            writeError: { text in FileHandle.standardError.write(Data(text.utf8)) })
    }

    /// Whether to colour: only on a terminal, and never when `NO_COLOR` is set to a non-empty value.
    public static func wantsColors(isTerminal: Bool, noColor: String?) -> Bool {
        isTerminal && (noColor ?? "").isEmpty
    }
}

/// Collects what the demo writes, for tests and for embedding the demo.
public final class CapturedOutput: Sendable {
    private let buffers = Locked<(out: String, err: String)>(("", ""))

    /// An empty capture.
    public init() {}

    /// A ``DemoOutput`` that appends to this capture (never coloured unless asked).
    public func output(colors: Bool = false) -> DemoOutput {
        DemoOutput(
            colors: colors,
            write: { text in self.buffers.withLock { $0.out += text } },
            writeError: { text in self.buffers.withLock { $0.err += text } })
    }

    /// Everything written to standard output so far.
    public var standardOutput: String { buffers.withLock { $0.out } }

    /// Everything written to standard error so far.
    public var standardError: String { buffers.withLock { $0.err } }
}
