/// Reading a service failed: it does not exist, has another type, or was not declared.
///
/// A provider that throws it (a read of an undeclared dependency or group, a wrong type) has a
/// programming error that no retry fixes: its node fails **permanently**.
public struct ServiceLookupError: ClassifiedError, Sendable, Equatable, CustomStringConvertible {
    /// What kind of lookup failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable { case notFound, typeMismatch, undeclared }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// No service has that name.
        public static let notFound = Code(.notFound)
        /// The service exists but its value has another type than the key says.
        public static let typeMismatch = Code(.typeMismatch)
        /// The service exists but the reader (an entry point or a provider) did not declare it.
        public static let undeclared = Code(.undeclared)

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
    public static func notFound(_ name: String, known: [String]) -> ServiceLookupError {
        var message = "no service named '\(name)'"
        if let suggestion = NameSuggestion.closest(to: name, among: known) {
            message += "; did you mean '\(suggestion)'?"
        } else if !known.isEmpty {
            message += "; the services are: \(known.prefix(12).joined(separator: ", "))"
            if known.count > 12 { message += ", ..." }
        }
        return ServiceLookupError(code: .notFound, service: name, message: message)
    }

    /// A lookup whose key expects another type than the service's value.
    public static func typeMismatch(_ name: String, expected: Any.Type, actual: Any.Type) -> ServiceLookupError {
        ServiceLookupError(
            code: .typeMismatch, service: name,
            message: "service '\(name)' holds a \(actual), but the key reads it as \(expected); "
                + "declare the key as \(SwiftRemedy.key(name, type: actual)) or change the service's provider")
    }

    /// A lookup of a service the reader did not declare; `type` is the type it was read as,
    /// when known (the remedy then shows the `@Needs` property to add).
    public static func undeclared(
        _ name: String, reader: String, declared: [String], type: Any.Type? = nil
    ) -> ServiceLookupError {
        let list = declared.isEmpty ? "nothing" : declared.joined(separator: ", ")
        let fix: String
        if reader.hasPrefix("service ") {
            fix =
                "add it to the service's dependencies (in a config: \"dependsOn\": [\(SwiftRemedy.literal(name))]; "
                + "in code: \(SwiftRemedy.dependsOn(name)), or the provider's requirements)"
        } else if let type {
            fix = "declare it on the entry point: \(SwiftRemedy.needs(name, type: type)) (or list it in requirements)"
        } else {
            fix = "declare it on the entry point with an @Needs property (or list it in requirements)"
        }
        return ServiceLookupError(
            code: .undeclared, service: name,
            message: "\(reader) read '\(name)' without declaring it (it declared: \(list)); \(fix)")
    }
}
