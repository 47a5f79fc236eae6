public import Container

/// The settings file of a `configuration` service cannot be used. Always permanent: the file
/// will not fix itself on a retry.
public struct ConfigurationError: ClassifiedError, Sendable, CustomStringConvertible {
    /// The settings file.
    public let path: String
    /// The line of the problem, when it is in the file's text.
    public let line: Int?
    /// The column of the problem, when it is in the file's text.
    public let column: Int?
    /// What is wrong and how to fix it.
    public let message: String

    /// Always `.permanent`.
    public var failureKind: FailureKind { .permanent }

    /// `path:line:column: message`.
    public var description: String {
        var place = path
        if let line {
            place += ":\(line)"
            if let column { place += ":\(column)" }
        }
        return "\(place): \(message)"
    }
}
