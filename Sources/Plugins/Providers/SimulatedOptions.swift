public import Container

/// The options of the `simulated` provider, typed: how long each run takes and what it does.
///
/// ``init(_:)`` reads a config's options (the provider reads them with it, once, in
/// ``SimulatedProvider/settings(from:)``); ``serviceOptions`` writes them back.
public struct SimulatedOptions: Sendable, Hashable {
    /// How long each run takes before its outcome (`durationMs`, whole milliseconds from 0 to
    /// ``SimulatedProvider/maxDurationMs``); none by default.
    public var duration: Duration
    /// What the node's runs do, the first run the first outcome (`outcomes`); the last one
    /// repeats. Never empty; `[.ok]` by default.
    public var outcomes: [SimulatedOutcome]

    /// Creates the options.
    public init(duration: Duration = .zero, outcomes: [SimulatedOutcome] = [.ok]) {
        self.duration = duration
        self.outcomes = outcomes
    }

    /// Reads a service's options as the `simulated` provider does.
    /// - Throws: ``/Container/OptionError`` for a `durationMs` that is not an integer from 0 to
    ///   ``SimulatedProvider/maxDurationMs``, `outcomes` that is not a non-empty list of known
    ///   words, or any other option (but `description` and options marked secret).
    public init(_ options: ServiceOptions) throws(OptionError) {
        // Any other key is a typo: a what-if run must not silently ignore `"durationMS"`.
        try options.refuseUnknownKeys(SimulatedProvider.knownOptions, provider: "simulated")
        let milliseconds = try options.int("durationMs", default: 0)
        guard milliseconds >= 0 else { throw .invalid("durationMs", "must not be negative, found \(milliseconds)") }
        let limit = SimulatedProvider.maxDurationMs
        guard milliseconds <= limit else {
            throw .invalid(
                "durationMs",
                "\(milliseconds) is over the limit of \(limit) ms (one hour, SimulatedProvider.maxDurationMs); "
                    + "use a shorter duration, or the outcome \"hang\" for a node that never ends")
        }
        let words = try options.strings("outcomes", default: ["ok"])
        guard !words.isEmpty else {
            throw .invalid("outcomes", "must list at least one outcome (ok, transient, permanent, hang)")
        }
        var outcomes: [SimulatedOutcome] = []
        for (index, word) in words.enumerated() {
            guard let outcome = SimulatedOutcome(word: word) else {
                let known = SimulatedOutcome.all.map(\.word)
                let hint = NameSuggestion.closest(to: word, among: known).map { "; did you mean '\($0)'?" } ?? ""
                throw .invalid(
                    "outcomes[\(index)]",
                    "unknown outcome '\(NameRules.visible(word))'\(hint) (known outcomes: \(known.joined(separator: ", ")))"
                )
            }
            outcomes.append(outcome)
        }
        self.init(duration: .milliseconds(milliseconds), outcomes: outcomes)
    }

    /// The options a config file with these values gives the provider: `durationMs` and
    /// `outcomes`, each when it is not the default (a config that leaves it out).
    public var serviceOptions: ServiceOptions {
        var values: [String: ServiceOptions.Value] = [:]
        if duration != .zero { values["durationMs"] = .int(SQLiteOptions.milliseconds(duration)) }
        if outcomes != [.ok] { values["outcomes"] = .array(outcomes.map { .string($0.word) }) }
        return ServiceOptions(values)
    }
}
