/// The node whose provider the current task runs, in a debug build. A request that provider
/// makes of its own container, whose answer would wait for that very node, would wait forever:
/// a debug build refuses it instead (see <doc:CoordinatorRules>). A release build binds nothing:
/// a task-local value per provider run costs 3-6% of a node's scheduling.
struct RunningNode: Sendable {
    /// The build the node belongs to (its ticket); `nil`: the task runs no provider.
    let ticket: ObjectIdentifier?
    let slot: Int

    init(ticket: BuildTicket, slot: Int) {
        self.ticket = ObjectIdentifier(ticket)
        self.slot = slot
    }

    private init() {
        ticket = nil
        slot = -1
    }

    /// Whether this is a node of `ticket`'s build.
    func belongs(to ticket: BuildTicket) -> Bool { self.ticket == ObjectIdentifier(ticket) }

    /// None: the task runs no provider.
    static let none = RunningNode()

    #if DEBUG
        /// Bound by a build's workers around each provider run. Tasks the provider starts inherit
        /// it (those it awaits, and unstructured ones; a detached task does not).
        @TaskLocal static var current = RunningNode.none
    #else
        /// Always ``none`` in a release build.
        static var current: RunningNode { .none }
    #endif
}
