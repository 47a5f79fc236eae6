import Container

/// A command line the demo cannot run: an unknown option, a missing or malformed value.
///
/// The demo prints ``description`` to standard error and exits with status 2.
public struct UsageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong and how to fix it.
    public let message: String

    /// Creates an error saying `message` (its control characters, from an argument it quotes,
    /// written as `\u{…}` escapes: it is one line, and never drives the terminal).
    public init(_ message: String) {
        self.message = NameRules.escapingControlCharacters(message)
    }

    public var description: String { "container-demo: \(message)\nRun 'container-demo --help' for usage." }
}

extension UsageError {
    /// The whole number `text` writes in digits only, or `nil` (`Int` alone also takes a sign,
    /// `+5`, which the help does not promise).
    static func wholeNumber(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }
}
