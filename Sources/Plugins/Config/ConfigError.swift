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
    /// One problem of a config file (see ``/Container/ServiceIssue``): its location is the file,
    /// line, column and key path of the problem (with overlays, of the file that wrote the
    /// offending value); its message never shows a secret. A graph problem keeps the graph
    /// validator's service, option and underlying error (what a provider threw when it read the
    /// options), the underlying error left out when its text would show a secret.
    public typealias Issue = ServiceIssue<Code>

    /// The kinds of config problems: the file's own (``syntax``, ``unknownKey``, ...) and every
    /// problem of the graph validator, wrapped (``graph(_:)``), so that one `switch` covers both:
    ///
    /// ```swift
    /// for issue in error.issues {
    ///     switch issue.code {
    ///     case .syntax: print("not JSON:", issue.location)
    ///     case .unknownKey, .unknownService: print("a typo:", issue.message)
    ///     case .graph(.cycle): print("a cycle:", issue.message)
    ///     case .graph(.undeclaredScope): print("declare the scope:", issue.message)
    ///     default: print(issue)
    ///     }
    /// }
    /// ```
    ///
    /// ``graphCode`` gives the wrapped ``/Container/GraphError/Code``. The graph codes of the
    /// first version keep their short names (``cycle`` is ``graph(_:)`` of
    /// ``/Container/GraphError/Code/cycle``); newer graph codes are written `.graph(...)`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case unreadableFile, syntax, unsupportedVersion, unknownKey, duplicateKey, missingKey, wrongType
            case invalidValue, unknownEntryPoint, limitExceeded
            case graph(GraphError.Code)
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The file could not be read.
        public static let unreadableFile = Code(.unreadableFile)
        /// The text is not valid JSON.
        public static let syntax = Code(.syntax)
        /// `version` is missing or not supported.
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// A key is not part of the format.
        public static let unknownKey = Code(.unknownKey)
        /// An object names the same key twice.
        public static let duplicateKey = Code(.duplicateKey)
        /// A required key is absent.
        public static let missingKey = Code(.missingKey)
        /// A value has the wrong JSON type.
        public static let wrongType = Code(.wrongType)
        /// A value has the right type but is not allowed (a negative timeout, an unknown word).
        public static let invalidValue = Code(.invalidValue)
        /// `entryPoints` names an entry point the registry does not have.
        public static let unknownEntryPoint = Code(.unknownEntryPoint)
        /// A value or the file goes past a documented bound of the format (``ConfigLimits``).
        public static let limitExceeded = Code(.limitExceeded)

        /// A problem the graph validator found (``/Container/GraphError``), as its code.
        public static func graph(_ code: GraphError.Code) -> Code { Code(.graph(code)) }

        /// The config code of a graph problem: ``graph(_:)``.
        public init(_ graphCode: GraphError.Code) { self.init(.graph(graphCode)) }

        /// The graph validator's code, when this is a graph problem.
        public var graphCode: GraphError.Code? {
            if case .graph(let code) = base { return code }
            return nil
        }

        /// Two services have the same name: `.graph(.duplicateService)`.
        public static let duplicateService = graph(.duplicateService)
        /// A provider id is not registered: `.graph(.unknownProvider)`.
        public static let unknownProvider = graph(.unknownProvider)
        /// `dependsOn` names a service that does not exist: `.graph(.missingDependency)`.
        public static let missingDependency = graph(.missingDependency)
        /// `dependsOn` names the same service twice: `.graph(.duplicateDependency)`.
        public static let duplicateDependency = graph(.duplicateDependency)
        /// A plain edge to an optional service, or `"<name>?"` naming one that is not:
        /// `.graph(.optionalEdge)`.
        public static let optionalEdge = graph(.optionalEdge)
        /// An input depends on something or lives in a scope: `.graph(.invalidInput)`.
        public static let invalidInput = graph(.invalidInput)
        /// Services depend on each other in a cycle: `.graph(.cycle)`.
        public static let cycle = graph(.cycle)
        /// An entry point requires a service that is not declared: `.graph(.unknownRequirement)`.
        public static let unknownRequirement = graph(.unknownRequirement)
        /// A reader expects another type than the provider makes: `.graph(.typeMismatch)`.
        public static let typeMismatch = graph(.typeMismatch)
        /// A provider rejected a service's options: `.graph(.invalidOptions)`.
        public static let invalidOptions = graph(.invalidOptions)
        /// A name is empty, too long or holds a control character:
        /// `.graph(.invalidName)`, for names of the file (provider and entry point ids) too.
        public static let invalidName = graph(.invalidName)
        /// An overlay changes or removes a service the config does not declare (a typo, or a new
        /// service without `"add": true`), as an override in code would: `.graph(.unknownService)`.
        public static let unknownService = graph(.unknownService)

        /// The code's name, e.g. `unknownKey`; a graph code's own name, e.g. `cycle`.
        public var description: String {
            switch base {
            case .unreadableFile: "unreadableFile"
            case .syntax: "syntax"
            case .unsupportedVersion: "unsupportedVersion"
            case .unknownKey: "unknownKey"
            case .duplicateKey: "duplicateKey"
            case .missingKey: "missingKey"
            case .wrongType: "wrongType"
            case .invalidValue: "invalidValue"
            case .unknownEntryPoint: "unknownEntryPoint"
            case .limitExceeded: "limitExceeded"
            case .graph(let code): code.description
            }
        }
    }

    /// The config file, as given to the loader (the base config when overlays were applied:
    /// each issue's ``/Container/ServiceIssue/location`` names the file it is in).
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
