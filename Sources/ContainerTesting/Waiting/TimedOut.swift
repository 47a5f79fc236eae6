import Container

/// Thrown when a wait of the kit (``withTimeout(_:_:fileID:line:_:)``, ``Gate/wait(timeout:_:fileID:line:)``,
/// ``TraceWatcher/wait(for:timeout:fileID:line:until:)``) did not end in time. A test that lets it propagate fails
/// with its message.
public struct TimedOut: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was awaited, e.g. `the build to start`.
    public let what: String
    /// How long it was awaited.
    public let after: Duration
    /// Where the wait was written (`Tests/MyTests.swift:42`), when known.
    public let place: String?

    /// Creates the error for a wait of `what` that lasted `after`, written at `place`.
    public init(what: String, after: Duration, place: String? = nil) {
        self.what = what
        self.after = after
        self.place = place
    }

    /// `timed out after 10s waiting for the build (MyTests.swift:42)`.
    public var description: String {
        "timed out after \(DurationFormat.short(after)) waiting for \(what)" + (place.map { " (\($0))" } ?? "")
    }
}
