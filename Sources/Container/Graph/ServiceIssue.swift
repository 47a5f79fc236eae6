/// One problem found before anything runs, as data: its kind (``code``), what is wrong and how
/// to fix it, the service it is about, where it was declared and, for rejected options, the option.
///
/// ``GraphError`` lists issues with a ``GraphError/Code`` (``GraphError/Issue``); the Plugins
/// module's `ConfigError` lists the same issues with its own codes, which wrap the graph's. A
/// layer that needs a position (the config loader placing a graph issue in a file) reads
/// ``location`` and ``option``, never the ``message``.
///
/// Two issues are equal when their code, message, service, location and option are;
/// ``underlying`` is not compared (the message already quotes it).
public struct ServiceIssue<Code: Hashable & Sendable & CustomStringConvertible>: Sendable, Hashable,
    CustomStringConvertible
{
    /// What kind of problem this is.
    public let code: Code
    /// What is wrong and how to fix it.
    public let message: String
    /// The service concerned, if any.
    public let service: String?
    /// Where the problem is: the service's declaration with the key it is about appended
    /// (`services[2].dependsOn[0]`, `services[1].scope`, `scopes[0]`), the reader whose requirement
    /// failed, or the file, line and column of a config problem (with overlays, of the file that
    /// wrote the offending value). Every part is `nil` when the place is unknown.
    public let location: ConfigLocation
    /// For an `invalidOptions` issue: the option the provider rejected, as ``OptionError/option``
    /// names it (`path`, `outcomes[1]`), relative to the service's `options`; `nil` when the
    /// provider threw another error or the problem is not about one option.
    public let option: String?
    /// The error behind the issue: for `invalidOptions`, what the provider threw when it read the
    /// options. Secret option values never reach it: when the service has secret options, an
    /// ``OptionError`` is kept with its message redacted and any other error is left out
    /// (``message`` still explains it, redacted).
    public let underlying: (any Error)?

    /// Creates an issue; a `nil` location is an unknown one.
    public init(
        code: Code, message: String, service: String? = nil, location: ConfigLocation? = nil, option: String? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.service = service
        self.location = location ?? ConfigLocation()
        self.option = option
        self.underlying = underlying
    }

    /// `location: message` (`file:line:column: keyPath: message` in a config file), or the
    /// message alone when the location is unknown.
    public var description: String {
        let place = location.description
        return place.isEmpty ? message : "\(place): \(message)"
    }

    /// Whether two issues say the same (``underlying`` aside).
    public static func == (lhs: ServiceIssue, rhs: ServiceIssue) -> Bool {
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
