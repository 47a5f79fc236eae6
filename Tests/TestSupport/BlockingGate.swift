import ContainerTesting
import Dispatch

/// A gate that blocks the **thread** that waits, for a test that must hold an executor (the main
/// actor) itself rather than suspend: a synchronous provider that blocks, or a job that keeps
/// the main actor busy. Every wait has a deadline and throws ``TimedOut`` past it.
public final class BlockingGate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    /// A closed gate.
    public init() {}

    /// Lets one waiter through (now, or the next one to come).
    public func open() { semaphore.signal() }

    /// Blocks the calling thread until the gate is opened, or throws ``TimedOut`` after `timeout`.
    public func wait(
        timeout: Duration = .seconds(30), _ what: String = "the blocking gate to open", fileID: String = #fileID,
        line: Int = #line
    ) throws {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        guard semaphore.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else {
            throw TimedOut(what: what, after: timeout, place: "\(fileID):\(line)")
        }
    }
}
