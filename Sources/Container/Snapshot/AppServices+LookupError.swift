extension AppServices {
    /// Reading a service failed: it does not exist, has another type, or was not declared.
    ///
    /// A provider that throws it (a read of an undeclared dependency or group, a wrong type) has a
    /// programming error that no retry fixes: its node fails **permanently**.
    public struct LookupError: ClassifiedError, Sendable, Equatable, CustomStringConvertible {
        /// What kind of lookup failure this is.
        public struct Code: Hashable, Sendable, CustomStringConvertible {
            private enum Base: String, Hashable, Sendable { case notFound, typeMismatch, undeclared, notBuilt }
            private let base: Base
            private init(_ base: Base) { self.base = base }

            /// No service has that name.
            public static let notFound = Code(.notFound)
            /// The service exists but its value has another type than the key says.
            public static let typeMismatch = Code(.typeMismatch)
            /// The service exists but the reader (an entry point or a provider) did not declare it.
            public static let undeclared = Code(.undeclared)
            /// The service exists but the snapshot does not hold it: the request it answered did
            /// not need it (a lazy or deferred service, see <doc:DemandDrivenStartUp>).
            public static let notBuilt = Code(.notBuilt)

            public var description: String { base.rawValue }
        }

        /// What went wrong.
        public let code: Code
        /// The name of the service that was read.
        public let service: String
        /// What happened and how to fix it.
        public let message: String

        public var description: String { message }

        /// Always permanent: a lookup fails the same way until the code or the graph changes.
        public var failureKind: FailureKind { .permanent }

        /// A lookup of a name that no service has.
        public static func notFound(_ name: String, known: [String]) -> LookupError {
            var message = "no service named '\(name)'"
            if let suggestion = NameSuggestion.closest(to: name, among: known) {
                message += "; did you mean '\(suggestion)'?"
            } else if !known.isEmpty {
                message += "; the services are: \(known.prefix(12).joined(separator: ", "))"
                if known.count > 12 { message += ", ..." }
            }
            return LookupError(code: .notFound, service: name, message: message)
        }

        /// A lookup whose key expects another type than the service's value.
        public static func typeMismatch(_ name: String, expected: Any.Type, actual: Any.Type) -> LookupError {
            LookupError(
                code: .typeMismatch, service: name,
                message: "service '\(name)' holds a \(actual), but the key reads it as \(expected); "
                    + "declare the key as \(SwiftRemedy.key(name, type: actual)) or change the service's provider")
        }

        /// A lookup of a service that the snapshot does not hold: the request it answered did not
        /// need it; `policy` says when the service is built, `type` is the type it was read as,
        /// when known (the remedy then shows the call to make).
        public static func notBuilt(
            _ name: String, policy: StartPolicy, generation: Int, type: Any.Type? = nil
        ) -> LookupError {
            let when =
                switch policy {
                case .eager: "is eager"
                case .deferred: "is deferred (built by startDeferred() or by a request that needs it)"
                case .lazy: "is lazy (built only when a request needs it)"
                }
            let ask =
                type.map { "try await container.service(\(SwiftRemedy.key(name, type: $0)))" }
                ?? "container.service(_:)"
            return LookupError(
                code: .notBuilt, service: name,
                message: "service '\(name)' \(when) and this snapshot (generation \(generation)) answered a request "
                    + "that did not need it; ask for it: \(ask), start(needs:), or an entry point's @Needs")
        }

        /// A read of an optional service that was not built (it failed, or a service it needs
        /// did), by a read that requires a value.
        public static func absent(_ name: String, reader: String, reason: String? = nil) -> LookupError {
            let why = reason.map { " (\($0))" } ?? ""
            return LookupError(
                code: .notBuilt, service: name,
                message: "\(reader) read optional service '\(name)', which was not built\(why); read it with "
                    + "optional(_:), which returns nil then")
        }

        /// A lookup of a service the reader did not declare; `type` is the type it was read as,
        /// when known (the remedy then shows the `@Needs` property to add).
        public static func undeclared(
            _ name: String, reader: String, declared: [String], type: Any.Type? = nil
        ) -> LookupError {
            let list = declared.isEmpty ? "nothing" : declared.joined(separator: ", ")
            let fix: String
            if reader.hasPrefix("service ") {
                fix =
                    "add it to the service's dependencies (in a config: \"dependsOn\": [\(SwiftRemedy.literal(name))]; "
                    + "in code: \(SwiftRemedy.dependsOn(name)), or the provider's requirements)"
            } else if let type {
                fix =
                    "declare it on the entry point: \(SwiftRemedy.needs(name, type: type)) (or list it in requirements)"
            } else {
                fix = "declare it on the entry point with an @Needs property (or list it in requirements)"
            }
            return LookupError(
                code: .undeclared, service: name,
                message: "\(reader) read '\(name)' without declaring it (it declared: \(list)); \(fix)")
        }
    }
}
