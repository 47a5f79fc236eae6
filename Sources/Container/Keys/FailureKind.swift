/// Whether a failure may go away on a retry.
public enum FailureKind: String, Sendable, Hashable, CustomStringConvertible {
    /// May succeed on a later attempt (a timeout, a busy resource). The container goes back to idle.
    case transient
    /// Will fail again the same way (bad configuration, corrupt data). The container's failure is sticky.
    case permanent

    public var description: String { rawValue }
}

/// An error that says itself whether it is transient or permanent.
///
/// This is the first thing the runtime asks when a provider throws (the order: ``BuildPolicy/ErrorClassifier``).
public protocol ClassifiedError: Error {
    /// How the runtime should treat this error.
    var failureKind: FailureKind { get }
}
