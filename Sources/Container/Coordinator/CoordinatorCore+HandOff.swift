/// The hand-offs of a coordinator's answers to its callers that ThreadSanitizer cannot see,
/// and what a published snapshot answers at once.
extension CoordinatorCore {
    /// Tells ThreadSanitizer (a no-op without it) that everything this thread did happens before
    /// the caller it is about to resume runs on (see ``tookOverFromResumer()``); called right
    /// before every resumption of a caller's continuation (a `Waiter` or an operation's).
    ///
    /// The Swift runtime tells ThreadSanitizer about a resumption only when the awaiting task
    /// had suspended (the run of its job acquires). A caller parks under the state lock and
    /// suspends a little later, after unlocking; a node ending on another thread in between
    /// resumes its continuation before it suspended, and the task then runs on with no acquire
    /// at all (`swift_continuation_await` finds it resumed). The atomic status makes that a real
    /// happens-before edge, but the runtime is not instrumented: without these annotations
    /// ThreadSanitizer reports the caller's reads of its snapshot (made at the node's end) as a
    /// race with the snapshot's initialization.
    func handingOverToCaller() {
        ThreadSanitizerHooks.release?(UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()))
    }

    /// Tells ThreadSanitizer (a no-op without it) that what the resumer did before
    /// ``handingOverToCaller()`` happens before what this caller does next; called once a
    /// caller's continuation returned or threw.
    func tookOverFromResumer() {
        ThreadSanitizerHooks.acquire?(UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()))
    }
}

extension AppServices {
    /// Whether this snapshot holds every service `key` asks for (what `start` may return at once).
    func holds(_ key: CoordinatorCore.Machine.Demands.Key) -> Bool {
        switch key {
        case .eager: holdsEager
        case .deferred: isComplete
        // A root with a value had its dependencies' values when it was built.
        case .roots(let slots): slots.allSatisfy { values.hasValue($0) }
        case .names(let names, let found):
            if let roots = found?.roots(in: layout) {
                roots.allSatisfy { values.hasValue($0) }
            } else {
                names.allSatisfy(contains)
            }
        }
    }
}
