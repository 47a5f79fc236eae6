public import Container

/// A config file could not be loaded: every problem found, each with its place in the file.
///
/// Loading collects all problems (JSON syntax, wrong types, unknown keys, unknown providers
/// and entry points, and every graph error of the core validator) and reports them together;
/// nothing is built while any exists. ``description`` prints one line per problem, each
/// starting with `file:line:column:` so that editors and terminals can jump to it:
///
/// ```text
/// Configs/broken.json:9:7: services[1].dependOn: unknown key 'dependOn'; did you mean 'dependsOn'?
/// Configs/broken.json:14:20: services[2].provider: service 'cache' uses unknown provider 'sqlit'; ...
/// ```
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    /// One problem of a config file.
    public struct Issue: Sendable, Hashable, CustomStringConvertible {
        /// What kind of problem this is.
        public let code: Code
        /// What is wrong and how to fix it (secrets never appear in it).
        public let message: String
        /// The file, line, column and key path of the problem.
        public let location: ConfigLocation

        /// Creates an issue.
        public init(code: Code, message: String, location: ConfigLocation) {
            self.code = code
            self.message = message
            self.location = location
        }

        /// `file:line:column: keyPath: message`.
        public var description: String {
            var place = location.file ?? "<config>"
            place += ":\(location.line ?? 1):\(location.column ?? 1):"
            if let keyPath = location.keyPath, !keyPath.isEmpty { place += " \(keyPath):" }
            return place + " " + message
        }
    }

    /// The kinds of config problems. Graph problems keep the names of ``/Container/GraphError/Code``.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The file could not be read.
        public static let unreadableFile = Code("unreadableFile")
        /// The text is not valid JSON.
        public static let syntax = Code("syntax")
        /// `version` is missing or not supported.
        public static let unsupportedVersion = Code("unsupportedVersion")
        /// A key is not part of the format.
        public static let unknownKey = Code("unknownKey")
        /// An object names the same key twice.
        public static let duplicateKey = Code("duplicateKey")
        /// A required key is absent.
        public static let missingKey = Code("missingKey")
        /// A value has the wrong JSON type.
        public static let wrongType = Code("wrongType")
        /// A value has the right type but is not allowed (a negative timeout, an unknown word).
        public static let invalidValue = Code("invalidValue")
        /// `entryPoints` names an entry point the registry does not have.
        public static let unknownEntryPoint = Code("unknownEntryPoint")
        /// A value or the file goes past a documented bound of the format (``ConfigLimits``).
        public static let limitExceeded = Code("limitExceeded")

        /// Two services have the same name.
        public static let duplicateService = Code(GraphError.Code.duplicateService)
        /// A provider id is not registered.
        public static let unknownProvider = Code(GraphError.Code.unknownProvider)
        /// `dependsOn` names a service that does not exist.
        public static let missingDependency = Code(GraphError.Code.missingDependency)
        /// `dependsOn` names the same service twice.
        public static let duplicateDependency = Code(GraphError.Code.duplicateDependency)
        /// Services depend on each other in a cycle.
        public static let cycle = Code(GraphError.Code.cycle)
        /// An entry point requires a service that is not declared.
        public static let unknownRequirement = Code(GraphError.Code.unknownRequirement)
        /// An entry point reads a service as another type than its provider makes.
        public static let typeMismatch = Code(GraphError.Code.typeMismatch)
        /// A provider rejected a service's options.
        public static let invalidOptions = Code(GraphError.Code.invalidOptions)
        /// A name is empty, too long or holds a control character (``Container/NameRules``).
        public static let invalidName = Code(GraphError.Code.invalidName)

        /// The config code of a graph problem.
        public init(_ graphCode: GraphError.Code) { self.name = graphCode.description }

        /// The code's name, e.g. `unknownKey`.
        public var description: String { name }
    }

    /// The config file, as given to the loader.
    public let file: String
    /// Every problem found, in the order of their place in the file.
    public let issues: [Issue]

    /// Creates an error from its issues.
    public init(file: String, issues: [Issue]) {
        self.file = file
        self.issues = issues
    }

    /// One line per issue, each starting with `file:line:column:`.
    public var description: String { issues.map(\.description).joined(separator: "\n") }

    /// The issues' codes, in order; handy in tests and tools.
    public var codes: [Code] { issues.map(\.code) }
}
