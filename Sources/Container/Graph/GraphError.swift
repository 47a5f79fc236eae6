/// A graph is invalid: every problem found, each with its location. Nothing was built.
public struct GraphError: Error, Sendable, CustomStringConvertible {
    /// One problem of the graph, as data: a layer that needs a position (the config loader
    /// placing it in a file) reads ``location`` and ``option``, never the ``message``.
    ///
    /// Two issues are equal when their code, message, service, location and option are;
    /// ``underlying`` is not compared (the message already quotes it).
    public struct Issue: Sendable, Hashable, CustomStringConvertible {
        /// What kind of problem this is.
        public let code: Code
        /// What is wrong and how to fix it.
        public let message: String
        /// The service concerned, if any.
        public let service: String?
        /// Where it was declared: the service's location with the key the problem is about
        /// appended (`services[2].dependsOn[0]`, `services[1].scope`, `scopes[0]`), or the
        /// location of the reader whose requirement failed.
        public let location: ConfigLocation?
        /// For ``Code/invalidOptions``: the option the provider rejected, as ``OptionError/option``
        /// names it (`path`, `outcomes[1]`), relative to the service's `options`; `nil` when the
        /// provider threw another error or the problem is not about one option.
        public let option: String?
        /// The error behind the issue: for ``Code/invalidOptions``, what the provider's
        /// `validate` threw. Secret option values never reach it: when the service has secret
        /// options, an ``OptionError`` is kept with its message redacted and any other error is
        /// left out (``message`` still explains it, redacted).
        public let underlying: (any Error)?

        /// Creates an issue.
        public init(
            code: Code, message: String, service: String? = nil, location: ConfigLocation? = nil,
            option: String? = nil, underlying: (any Error)? = nil
        ) {
            self.code = code
            self.message = message
            self.service = service
            self.location = location
            self.option = option
            self.underlying = underlying
        }

        /// `location: message`.
        public var description: String {
            guard let location, !location.description.isEmpty else { return message }
            return "\(location): \(message)"
        }

        /// Whether two issues say the same (``underlying`` aside).
        public static func == (lhs: Issue, rhs: Issue) -> Bool {
            lhs.code == rhs.code && lhs.message == rhs.message && lhs.service == rhs.service
                && lhs.location == rhs.location && lhs.option == rhs.option
        }

        /// Hashes what `==` compares.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(code)
            hasher.combine(message)
            hasher.combine(service)
            hasher.combine(location)
            hasher.combine(option)
        }
    }

    /// The kinds of graph problems.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case duplicateService, unknownProvider, missingDependency, duplicateDependency, cycle
            case unknownRequirement, typeMismatch, invalidOptions, invalidName
            case undeclaredScope, invalidScope, captiveDependency, crossScopeDependency, scopeMismatch
            case unknownService
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Two services have the same name (or one service is overridden twice).
        public static let duplicateService = Code(.duplicateService)
        /// A provider id is not registered.
        public static let unknownProvider = Code(.unknownProvider)
        /// `dependsOn` names a service that does not exist.
        public static let missingDependency = Code(.missingDependency)
        /// `dependsOn` names the same service twice.
        public static let duplicateDependency = Code(.duplicateDependency)
        /// Services depend on each other in a cycle.
        public static let cycle = Code(.cycle)
        /// An entry point requires a service that is not declared.
        public static let unknownRequirement = Code(.unknownRequirement)
        /// A reader's key expects another type than the provider makes, or an override makes another type.
        public static let typeMismatch = Code(.typeMismatch)
        /// A provider rejected a node's options.
        public static let invalidOptions = Code(.invalidOptions)
        /// A service name is empty.
        public static let invalidName = Code(.invalidName)
        /// A service or an entry point names a scope the graph does not declare.
        public static let undeclaredScope = Code(.undeclaredScope)
        /// A declared scope name is empty, repeated, or holds a character it may not.
        public static let invalidScope = Code(.invalidScope)
        /// An app service depends on a scoped one, which it would outlive (see <doc:Scopes>).
        public static let captiveDependency = Code(.captiveDependency)
        /// A scoped service depends on a service of another scope; scopes never see each other.
        public static let crossScopeDependency = Code(.crossScopeDependency)
        /// An entry point requires a scoped service of a scope it does not run in.
        public static let scopeMismatch = Code(.scopeMismatch)
        /// An override names a service the graph does not declare.
        public static let unknownService = Code(.unknownService)

        public var description: String { base.rawValue }
    }

    /// Every problem found, in declaration order.
    public let issues: [Issue]

    /// Creates an error from its issues.
    public init(issues: [Issue]) { self.issues = issues }

    /// A one-line summary followed by one line per issue.
    public var description: String {
        let count = issues.count == 1 ? "1 problem" : "\(issues.count) problems"
        return "invalid service graph (\(count)):\n" + issues.map { "  - \($0)" }.joined(separator: "\n")
    }
}
