/// Runs async operations one at a time, in the order they arrive: a second caller waits until
/// the first one's operation has returned.
///
/// For operations that read shared state, await, and then write it (a reload computes its
/// changes from the declared graph, waits for the app's transition, then adopts the graph):
/// two of them interleaved would adopt the graphs in one order and transition in the other.
final class OneAtATime: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Locked(State())

    /// Runs `operation` once every operation that arrived before it has returned.
    func run<Result>(_ operation: () async throws(ContainerError) -> Result) async throws(ContainerError) -> Result {
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.busy {
                    state.waiting.append(turn)
                    return false
                }
                state.busy = true
                return true
            }
            if now { turn.resume() }
        }
        defer {
            // Hands the turn to the next in line (it stays busy), or frees it.
            let next = state.withLock { state in
                if state.waiting.isEmpty {
                    state.busy = false
                    return nil as CheckedContinuation<Void, Never>?
                }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
        return try await operation()
    }
}
