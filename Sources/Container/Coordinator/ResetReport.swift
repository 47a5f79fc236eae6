/// What a reset, a reload or a shutdown did.
public struct ResetReport: Sendable {
    /// One value's teardown.
    public struct Teardown: Sendable, Hashable {
        /// The service whose value was torn down.
        public let service: String
        /// The generation that built the value.
        public let generation: Int
        /// The teardown's error (redacted), when it failed.
        public let error: String?
        /// The scope instance the value lived in (`"push#notification-42"`), or `nil` for the app.
        public let scope: String?

        /// Creates a record.
        public init(service: String, generation: Int, error: String?, scope: String? = nil) {
            self.service = service
            self.generation = generation
            self.error = error
            self.scope = scope
        }
    }

    /// Why the generation changed.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable { case reset, reload, shutdown }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// ``ServiceContainer/reset(invalidating:)``.
        public static let reset = Reason(.reset)
        /// ``ServiceContainer/reload(_:)``: a new version of the graph.
        public static let reload = Reason(.reload)
        /// ``ServiceContainer/shutdown(deadline:)`` or ``ServiceContainer/shutdown()``.
        public static let shutdown = Reason(.shutdown)

        public var description: String { base.rawValue }
    }

    /// Why the generation changed.
    public let reason: Reason
    /// The generation that was retired.
    public let from: Int
    /// The generation that is now current (the same as ``from`` for a shutdown).
    public let to: Int
    /// Services invalidated (to be rebuilt in the new generation).
    public let invalidated: [String]
    /// Services whose values carried over to the new generation unchanged.
    public var carriedOver: [String] { carried.names }
    /// See ``carriedOver``: slots of the graph's names, made into names when read.
    let carried: SlotNames
    /// The teardowns reported by this operation, in the order they ran: the values it retired,
    /// the late values of a build it superseded, and earlier teardowns no operation had
    /// reported yet (those of a permanent failure), so no teardown error is ever lost.
    public let tornDown: [Teardown]
    /// The build this operation cancelled, if one was running.
    public let cancelledBuild: BuildAttempt?

    /// Teardowns that failed.
    public var failures: [Teardown] { tornDown.filter { $0.error != nil } }

    /// The coordinator's id of the operation this reports (0 until it completes).
    var operation = 0

    init(
        reason: Reason, from: Int, to: Int, invalidated: [String], carriedOver: [String],
        tornDown: [Teardown] = [], cancelledBuild: BuildAttempt? = nil
    ) {
        self.init(
            reason: reason, from: from, to: to, invalidated: invalidated, carried: SlotNames(carriedOver),
            tornDown: tornDown, cancelledBuild: cancelledBuild)
    }

    init(
        reason: Reason, from: Int, to: Int, invalidated: [String], carried: SlotNames,
        tornDown: [Teardown] = [], cancelledBuild: BuildAttempt? = nil
    ) {
        self.reason = reason
        self.from = from
        self.to = to
        self.invalidated = invalidated
        self.carried = carried
        self.tornDown = tornDown
        self.cancelledBuild = cancelledBuild
    }

    /// The same report with these teardowns.
    func with(tornDown: [Teardown]) -> ResetReport {
        var report = ResetReport(
            reason: reason, from: from, to: to, invalidated: invalidated, carried: carried, tornDown: tornDown,
            cancelledBuild: cancelledBuild)
        report.operation = operation
        return report
    }

    /// The same report, saying it cancelled `build`.
    func with(cancelledBuild build: BuildAttempt) -> ResetReport {
        var report = ResetReport(
            reason: reason, from: from, to: to, invalidated: invalidated, carried: carried, tornDown: tornDown,
            cancelledBuild: build)
        report.operation = operation
        return report
    }
}
