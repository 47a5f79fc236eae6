public import Container

/// The `simulated` provider: a node whose duration and per-run outcomes come from its options,
/// for demos, benchmarks and what-if runs of a start-up graph.
///
/// Options:
/// - `durationMs` (default 0, at most ``maxDurationMs``, one hour): how long each run takes (a
///   cancellable `Task.sleep`).
/// - `outcomes` (default `["ok"]`): one of `ok`, `transient`, `permanent`, `hang` per run of
///   the node's provider within its generation. The first run uses the first outcome, the
///   second run the second, and so on; the last one repeats. A node that never ran (it was
///   skipped or cancelled before it started) has not used one. Runs are counted across the
///   retries inside one build and across the attempts (`start()` calls) of one generation; a
///   new generation starts again at the first outcome.
///
/// ```json
/// { "name": "remoteConfig", "provider": "simulated",
///   "options": { "durationMs": 20, "outcomes": ["transient", "ok"] } }
/// ```
///
/// The run number comes from the runtime (``/Container/ProviderContext/runInGeneration``), so the
/// provider keeps no state: containers built from one graph, even concurrently, never share counts.
public struct SimulatedProvider: ServiceProvider {
    /// `simulated`.
    public let id = "simulated"

    /// Creates the provider.
    public init() {}

    /// The longest `durationMs`: one hour, in milliseconds. A simulated start-up step longer
    /// than that is a typo (and `Int.max` would sleep for ever).
    public static let maxDurationMs = 3_600_000

    /// Requires `durationMs` to be an integer from 0 to ``maxDurationMs``, `outcomes` a non-empty
    /// list of known words, and no other options (but `description` and options marked secret).
    public func validate(options: ServiceOptions) throws {
        _ = try Self.settings(from: options)
    }

    /// Sleeps `durationMs`, then does what this run's outcome says.
    public func make(_ context: ProviderContext) async throws -> SimulatedValue {
        let (duration, outcomes) = try Self.settings(from: context.options)
        let run = context.runInGeneration
        let outcome = outcomes[min(run, outcomes.count) - 1]
        if outcome == .hang {
            // Ends only by cancellation: Task.sleep throws CancellationError when cancelled.
            while true { try await Task.sleep(for: .seconds(3_600)) }
        }
        if duration > 0 { try await Task.sleep(for: .milliseconds(duration)) }
        switch outcome {
        case .transient: throw SimulatedFailure(node: context.serviceName, run: run, failureKind: .transient)
        case .permanent: throw SimulatedFailure(node: context.serviceName, run: run, failureKind: .permanent)
        default: return SimulatedValue(node: context.serviceName, run: run, generation: context.generation)
        }
    }

    /// The options `simulated` reads; any other key is a typo (a what-if run must not silently
    /// ignore `"durationMS"`), except free-form keys marked secret and a `description`.
    static let knownOptions = ["durationMs", "outcomes", "description"]

    private static func settings(from options: ServiceOptions) throws(OptionError) -> (Int, [SimulatedOutcome]) {
        for key in options.values.keys.sorted() where !knownOptions.contains(key) && !options.secretKeys.contains(key) {
            let hint = NameSuggestion.closest(to: key, among: knownOptions).map { "did you mean '\($0)'? " } ?? ""
            throw .invalid(key, "unknown option; \(hint)(simulated reads: \(knownOptions.joined(separator: ", ")))")
        }
        let duration = try options.int("durationMs", default: 0)
        guard duration >= 0 else { throw .invalid("durationMs", "must not be negative, found \(duration)") }
        guard duration <= maxDurationMs else {
            throw .invalid(
                "durationMs",
                "\(duration) is over the limit of \(maxDurationMs) ms (one hour, SimulatedProvider.maxDurationMs); "
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
                    "unknown outcome '\(word)'\(hint) (known outcomes: \(known.joined(separator: ", ")))")
            }
            outcomes.append(outcome)
        }
        return (duration, outcomes)
    }
}
