import Container

/// A one-shot gate: tasks wait until someone opens it, then every wait, now and later,
/// returns at once. It orders concurrent work without sleeping.
///
/// Three ways to wait, for the three kinds of code a test holds back:
///
/// ```swift
/// let gate = Gate()
/// let spec = ServiceSpec(.database) { _ in
///     try await gate.cancellableWait()   // a provider that honours cancellation
///     return Database.inMemory
/// }
/// // ...
/// await gate.wait()                          // ignores cancellation, like a provider that never checks it
/// try await gate.wait(timeout: .seconds(5))  // fails with TimedOut instead of hanging the test
/// gate.open()
/// ```
public final class Gate: Sendable {
    private struct State {
        var isOpen = false
        /// The tickets of tasks waiting; a ticket finished early (cancelled, timed out) stays
        /// until the gate opens: finishing it twice is harmless, and scanning on every wait
        /// would make many waiters quadratic.
        var waiters: [OneShot<Void>] = []
    }

    private let state = Locked(State())

    /// A closed gate.
    public init() {}

    /// Whether the gate is open.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Opens the gate and lets every waiter through (now and later). Opening twice is harmless.
    public func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.finish(.success(())) }
    }

    /// Suspends until the gate is open, whatever happens to the waiting task: its cancellation
    /// does not end the wait (as with a provider that never checks for cancellation).
    public func wait() async {
        // Neither a deadline nor a cancellation can end this wait, so it cannot throw.
        try? await wait(cancellable: false, timeout: nil, what: "")
    }

    /// Suspends until the gate is open, or until the waiting task is cancelled.
    /// - Throws: `CancellationError` when the task is cancelled first (also when it already was).
    public func cancellableWait() async throws {
        try await wait(cancellable: true, timeout: nil, what: "")
    }

    /// Suspends until the gate is open; fails after `timeout`, or when the task is cancelled.
    ///
    /// - Parameters:
    ///   - timeout: how long to wait.
    ///   - what: what the gate stands for, for the error's message.
    ///   - fileID: the caller's file, for the message that points at the call (default: the call site).
    ///   - line: the caller's line (default: the call site).
    /// - Throws: ``TimedOut`` after `timeout`, `CancellationError` when the task is cancelled.
    public func wait(
        timeout: Duration, _ what: String = "the gate to open", fileID: String = #fileID, line: Int = #line
    ) async throws {
        try await wait(cancellable: true, timeout: timeout, what: what, place: "\(fileID):\(line)")
    }

    private func wait(cancellable: Bool, timeout: Duration?, what: String, place: String? = nil) async throws {
        let ticket = OneShot<Void>()
        let mustWait = state.withLock { state in
            guard !state.isOpen else { return false }
            state.waiters.append(ticket)
            return true
        }
        guard mustWait else { return }
        try await ticket.value(cancellable: cancellable, timeout: timeout, what: what, place: place)
    }
}
