import Container
import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Graceful shutdown on SIGINT and SIGTERM (the README's "Signals").
///
/// The first signal shuts the running container down with
/// `shutdown(deadline: .now + `` grace ``)`: new callers are refused, a running build may finish
/// until the deadline and is cancelled after it, and every value is torn down (scopes first).
/// The run then ends as usual, printing the trace collected so far (teardowns included), and
/// the demo exits with ``exitStatus``: 130 for SIGINT, 143 for SIGTERM. A second signal exits at
/// once with that same status; a signal while no container runs exits at once with 128 + its number.
///
/// ```swift
/// let interrupt = DemoInterrupt()
/// interrupt.installSignalHandlers(output: .standard())
/// exit(await DemoCommand.main(arguments, output: .standard(), interrupt: interrupt))
/// ```
///
/// Tests can call ``received(signal:)`` instead of sending a real signal.
public final class DemoInterrupt: Sendable {
    /// How long a running build may go on after the first signal before it is cancelled, unless
    /// the interrupt was made with another ``grace``.
    public static let defaultGrace: Duration = .seconds(2)
    /// How long a running build may go on after the first signal before it is cancelled.
    public let grace: Duration

    /// What a signal does.
    public enum Response: Sendable, Equatable {
        /// The running container is shutting down; the run ends after its teardown.
        case shuttingDown
        /// Exit now with this status: a second signal, or nothing to tear down.
        case exitNow(Int32)
    }

    private struct State {
        /// The container of the running config run, if any.
        var container: ServiceContainer?
        /// The shutdown of `container`, once asked for (by a signal or by the run's end).
        var shutdown: Task<Void, Never>?
        /// The first signal received.
        var signal: Int32?
        var count = 0
    }

    private let state = Locked(State())
    /// The signal sources, kept alive for the life of the process.
    private let sources = Locked<[any DispatchSourceSignal]>([])

    /// An interrupt that no signal has reached yet; a running build gets `grace` after the first.
    public init(grace: Duration = DemoInterrupt.defaultGrace) { self.grace = grace }

    /// The grace period `environment` asks for: `CONTAINER_DEMO_GRACE_MS`, whole milliseconds
    /// from 0 to one hour; ``defaultGrace`` without it.
    /// - Throws: ``UsageError`` for any other value (the demo exits 2 before it runs).
    public static func grace(from environment: [String: String]) throws(UsageError) -> Duration {
        guard let text = environment["CONTAINER_DEMO_GRACE_MS"] else { return defaultGrace }
        guard let milliseconds = UsageError.wholeNumber(text), (0...3_600_000).contains(milliseconds) else {
            let shown = NameRules.visible(text, limit: 40)
            throw UsageError(
                "CONTAINER_DEMO_GRACE_MS must be whole milliseconds from 0 to 3600000 (an hour), found '\(shown)'; "
                    + "unset it for the default \(defaultGrace.components.seconds) s")
        }
        return .milliseconds(milliseconds)
    }

    /// 128 + the first signal's number (130 for SIGINT, 143 for SIGTERM) once a signal shut the
    /// run down; `nil` otherwise.
    public var exitStatus: Int32? { state.withLock { $0.signal.map { 128 + $0 } } }

    /// Handles one signal: the first shuts the running container down gracefully; a second one,
    /// or one while no container runs, asks to exit at once.
    public func received(signal: Int32) -> Response {
        state.withLock { state in
            state.count += 1
            // A second signal exits with the status the first one asked for (130 or 143).
            guard state.count == 1, let container = state.container else {
                return .exitNow(128 + (state.signal ?? signal))
            }
            state.signal = signal
            if state.shutdown == nil {
                let deadline = ContinuousClock.now + grace
                state.shutdown = Task { _ = try? await container.shutdown(deadline: deadline) }
            }
            return .shuttingDown
        }
    }

    /// Installs the SIGINT and SIGTERM handlers: Dispatch signal sources, the signals' default
    /// action (ending the process at once) turned off first. Notes go to `output`'s standard error.
    public func installSignalHandlers(output: DemoOutput) {
        let queue = DispatchQueue(label: "container-demo.signals")
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [self] in
                // Signals that arrive together make one event: each counts.
                for _ in 0..<max(1, Int(source.data)) {
                    switch received(signal: number) {
                    case .shuttingDown:
                        output.writeError(
                            "container-demo: \(name): shutting down (the running build has up to "
                                + "\(grace.components.seconds) s to finish; a second signal exits at once)\n")
                    case .exitNow(let status):
                        output.writeError("container-demo: \(name): exiting at once, without waiting for teardown\n")
                        exit(status)
                    }
                }
            }
            source.resume()
            sources.withLock { $0.append(source) }
        }
    }

    /// A config run's container: a signal from now on shuts it down.
    func track(_ container: ServiceContainer) {
        state.withLock { $0.container = container }
    }

    /// Ends a run's `container`: shuts it down, or waits for the shutdown a signal began, so the
    /// trace holds every teardown when this returns. A signal after this exits at once.
    func finish(_ container: ServiceContainer) async {
        let shutdown = state.withLock { state -> Task<Void, Never> in
            if let shutdown = state.shutdown, state.container === container { return shutdown }
            let shutdown = Task { _ = try? await container.shutdown() }
            state.container = container
            state.shutdown = shutdown
            return shutdown
        }
        await shutdown.value
        state.withLock { state in
            if state.container === container {
                state.container = nil
                state.shutdown = nil
            }
        }
    }

    /// Whether a signal interrupted the run: the demo then runs no further story.
    var wasInterrupted: Bool { exitStatus != nil }
}
