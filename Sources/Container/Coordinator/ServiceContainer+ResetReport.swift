extension ServiceContainer {
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

        /// Why the generation changed (the same reasons the trace gives).
        public typealias Reason = TraceEvent.GenerationChange.Reason

        /// Why the generation changed.
        public let reason: Reason
        /// The generation that was retired.
        public let from: Int
        /// The generation that is now current (the same as ``from`` for a shutdown).
        public let to: Int
        /// Services invalidated (to be rebuilt in the new generation).
        public let invalidated: [String]
        /// Services whose values carried over to the new generation unchanged. A service that held
        /// no value (never asked for, or retired by a failure) is not among them.
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

        /// The same report, listing `name` among the services carried over too (the late value
        /// of a build the operation superseded, which the new generation kept).
        func with(alsoCarried name: String) -> ResetReport {
            var report = ResetReport(
                reason: reason, from: from, to: to, invalidated: invalidated,
                carried: SlotNames(carried.names + [name]), tornDown: tornDown, cancelledBuild: cancelledBuild)
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
}

extension ServiceContainer.ResetReport.Teardown: CustomStringConvertible {
    /// `session (g1)`, `pushDetail in push#notification-42 (g1)`, or with its error
    /// `database (g1) failed: disk I/O error`.
    public var description: String {
        guard let error else { return label }
        return "\(label) failed: \(error)"
    }

    /// `session (g1)`, `pushDetail in push#notification-42 (g1)`: the value, without the error.
    var label: String {
        let place = scope.map { " in \($0)" } ?? ""
        return "\(service)\(place) (g\(generation))"
    }
}

extension ServiceContainer.ResetReport: CustomStringConvertible, CustomDebugStringConvertible {
    /// What the operation did, for a person: the generations, what was invalidated and what
    /// carried over, what was torn down and which teardowns failed, and the build it cancelled.
    ///
    /// ```text
    /// reset: generation 1 → 2
    ///   invalidated (built again in generation 2): session, feed
    ///   carried over (the same values): configuration, database
    ///   torn down, in order: feed (g1), session (g1)
    ///   teardown failed: session (g1): token revocation timed out
    ///   cancelled build: g1 a2
    /// ```
    ///
    /// A shutdown (or a closed scope instance) says `shutdown: generation 2` and lists its
    /// teardowns. Long lists name their first 20 services and count the others.
    public var description: String {
        var lines: [String]
        if reason == .shutdown {
            lines = ["shutdown: generation \(from)"]
        } else {
            lines = [
                "\(reason): generation \(from) → \(to)",
                "  invalidated (built again in generation \(to)): \(ReportText.list(invalidated))",
                "  carried over (the same values): \(ReportText.list(carriedOver))",
            ]
        }
        lines += ReportText.teardownLines(tornDown, failures: failures)
        if let cancelledBuild { lines.append("  cancelled build: \(cancelledBuild)") }
        return lines.joined(separator: "\n")
    }

    /// The report on one line, for logs and collections:
    /// `ResetReport(reset, generation 1 → 2, invalidated: [session], carried over: [configuration],
    /// torn down: [session (g1)], cancelled build: g1 a2)`.
    public var debugDescription: String {
        var fields = ["\(reason)", "generation \(from) → \(to)"]
        if reason != .shutdown {
            fields.append("invalidated: [\(ReportText.list(invalidated, none: ""))]")
            fields.append("carried over: [\(ReportText.list(carriedOver, none: ""))]")
        }
        fields.append("torn down: [\(ReportText.list(tornDown.map(\.description), none: ""))]")
        if let cancelledBuild { fields.append("cancelled build: \(cancelledBuild)") }
        return "ResetReport(" + fields.joined(separator: ", ") + ")"
    }
}

/// The wording shared by ``ServiceContainer/ResetReport`` and ``ServiceContainer/ReloadReport``'s descriptions.
enum ReportText {
    /// The most names a description lists; a reload of a large graph carries over thousands.
    static let maxListed = 20

    /// `a, b, c`, at most ``maxListed`` names then `… and 9,980 more`; `none` when empty.
    static func list(_ names: [String], none: String = "none") -> String {
        guard !names.isEmpty else { return none }
        guard names.count > maxListed else { return names.joined(separator: ", ") }
        return names.prefix(maxListed).joined(separator: ", ") + ", … and \(names.count - maxListed) more"
    }

    /// `torn down, in order: ...`, then a line per failed teardown with its error (the first
    /// ``maxListed``, then how many more), so an error never hides in a long list.
    static func teardownLines(
        _ tornDown: [ServiceContainer.ResetReport.Teardown], failures: [ServiceContainer.ResetReport.Teardown]
    ) -> [String] {
        guard !tornDown.isEmpty else { return ["  torn down: nothing"] }
        var lines = ["  torn down, in order: \(list(tornDown.map(\.label)))"]
        for failure in failures.prefix(maxListed) {
            lines.append("  teardown failed: \(failure.label): \(failure.error ?? "")")
        }
        if failures.count > maxListed { lines.append("  … and \(failures.count - maxListed) more failed teardowns") }
        return lines
    }
}
