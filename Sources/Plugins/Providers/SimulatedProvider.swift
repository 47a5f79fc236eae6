public import Container
internal import Foundation

/// The `simulated` provider: a node whose duration and per-run outcomes come from its options,
/// for demos, benchmarks and what-if runs of a start-up graph (see <doc:ConfigFormat>).
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

    /// Reads the options once, when the graph is validated: `durationMs` an integer from 0 to
    /// ``maxDurationMs``, `outcomes` a non-empty list of known words, and no other options (but
    /// `description` and options marked secret): ``SimulatedOptions/init(_:)``.
    /// - Throws: ``/Container/OptionError`` naming the option that is wrong.
    public func settings(from options: ServiceOptions) throws(OptionError) -> SimulatedOptions {
        try SimulatedOptions(options)
    }

    /// Sleeps `durationMs`, then does what this run's outcome says.
    public func make(_ context: ProviderContext) async throws -> SimulatedValue {
        let settings = try context.settings(for: self)
        let run = context.runInGeneration
        let outcome = settings.outcomes[min(run, settings.outcomes.count) - 1]
        if outcome == .hang {
            // Ends only by cancellation: Task.sleep throws CancellationError when cancelled.
            while true { try await Task.sleep(for: .seconds(3_600)) }
        }
        if settings.duration > .zero { try await Task.sleep(for: settings.duration) }
        switch outcome {
        case .transient: throw SimulatedFailure(node: context.serviceName, run: run, failureKind: .transient)
        case .permanent: throw SimulatedFailure(node: context.serviceName, run: run, failureKind: .permanent)
        default: return SimulatedValue(node: context.serviceName, run: run, generation: context.generation)
        }
    }

    /// The options `simulated` reads; any other key is a typo, except free-form keys marked
    /// secret and a `description`.
    static let knownOptions = ["durationMs", "outcomes", "description"]
}

/// The `simulatedNow` provider: a synchronous ``SimulatedProvider`` (a
/// ``/Container/SynchronousServiceProvider``), for the synchronous tier of a simulated start-up
/// (`resolveNow`). Its options are `simulated`'s; a run blocks its thread for `durationMs` (keep
/// it to a few milliseconds: a synchronous provider may run on the main thread; run by a build,
/// it stops soon after the build is cancelled), and the `hang` outcome is refused (nothing
/// could cancel it on a thread that is not a task's).
public struct SynchronousSimulatedProvider: SynchronousServiceProvider {
    /// `simulatedNow`.
    public let id = "simulatedNow"

    /// Creates the provider.
    public init() {}

    /// ``SimulatedProvider/settings(from:)``, and no `hang` outcome.
    public func settings(from options: ServiceOptions) throws(OptionError) -> SimulatedOptions {
        let settings = try SimulatedOptions(options)
        if settings.outcomes.contains(.hang) {
            throw .invalid(
                "outcomes", "a synchronous provider cannot hang (nothing could cancel it); use \"simulated\" for a hang"
            )
        }
        return settings
    }

    /// Blocks the thread for `duration`, in slices of at most 10 ms: run by a build, it stops
    /// with `CancellationError` soon after the build's task is cancelled (a shutdown's grace
    /// period ends); run on a thread that is not a task's (`resolveNow`), it blocks throughout.
    static func block(for duration: Duration) throws(CancellationError) {
        guard duration > .zero else { return }
        let clock = ContinuousClock()
        let deadline = clock.now + duration
        while true {
            if Task.isCancelled { throw CancellationError() }
            let left = deadline - clock.now
            guard left > .zero else { return }
            let slice = min(left, .milliseconds(10))
            let (seconds, attoseconds) = slice.components
            Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
        }
    }

    /// Blocks for `durationMs` (in slices: it stops soon after its build is cancelled), then does
    /// what this run's outcome says.
    public func makeNow(_ context: ProviderContext) throws -> SimulatedValue {
        let settings = try context.settings(for: self)
        let run = context.runInGeneration
        try Self.block(for: settings.duration)
        switch settings.outcomes[min(run, settings.outcomes.count) - 1] {
        case .transient: throw SimulatedFailure(node: context.serviceName, run: run, failureKind: .transient)
        case .permanent: throw SimulatedFailure(node: context.serviceName, run: run, failureKind: .permanent)
        default: return SimulatedValue(node: context.serviceName, run: run, generation: context.generation)
        }
    }
}
