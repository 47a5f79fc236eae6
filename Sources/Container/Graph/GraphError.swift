/// A graph is invalid: every problem found, each with its location. Nothing was built.
public struct GraphError: Error, Sendable, CustomStringConvertible {
    /// One problem of the graph, as data (see ``ServiceIssue``): a layer that needs a position
    /// (the config loader placing it in a file) reads its location and option, never its message.
    public typealias Issue = ServiceIssue<Code>

    /// The kinds of graph problems.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case duplicateService, unknownProvider, missingDependency, duplicateDependency, cycle
            case unknownRequirement, typeMismatch, invalidOptions, invalidName
            case undeclaredScope, invalidScope, captiveDependency, crossScopeDependency, scopeMismatch
            case unknownService, optionalEdge, invalidInput, notSynchronous
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
        /// A plain edge to an optional service (write `"<name>?"`), or `"<name>?"` naming a
        /// service that is not optional.
        public static let optionalEdge = Code(.optionalEdge)
        /// An input service (``ServiceSpec/input(_:start:location:)``) depends on something, or lives
        /// in a scope: the app supplies an input's value once, for the app.
        public static let invalidInput = Code(.invalidInput)
        /// A service declared `sync` (``ServiceSpec/sync``) has an asynchronous service in its
        /// closure, so ``ServiceContainer/resolveNow(_:as:isolation:)`` could not build it (see <doc:LaunchTiers>).
        public static let notSynchronous = Code(.notSynchronous)

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
