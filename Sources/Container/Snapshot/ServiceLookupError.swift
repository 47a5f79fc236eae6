/// Reading a service failed: it does not exist, has another type, or was not declared.
public struct ServiceLookupError: Error, Sendable, Equatable, CustomStringConvertible {
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
                + "declare the key as ServiceKey<\(actual)>(\"\(name)\") or change the service's provider")
    }

    /// A lookup of a service the reader did not declare.
    public static func undeclared(_ name: String, reader: String, declared: [String]) -> ServiceLookupError {
        let list = declared.isEmpty ? "nothing" : declared.joined(separator: ", ")
        let fix =
            reader.hasPrefix("service ")
            ? "add \"\(name)\" to its dependsOn (in code: dependsOn: .\(name), or the provider's requirements)"
            : "add it to the entry point's requirements (or an @Needs property)"
        return ServiceLookupError(
            code: .undeclared, service: name,
            message: "\(reader) read '\(name)' without declaring it (it declared: \(list)); \(fix)")
    }
}
