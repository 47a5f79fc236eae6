import Synchronization

/// A build's ticket on its way to the build task, taken out once by the task.
///
/// The task's closure keeps what it captured until the task ends. A ticket captured directly
/// would keep the kept values' array shared with the coordinator until then, and the
/// coordinator's first write after the build (keeping what it made) would copy the whole array:
/// after a partial reset of a large graph, a copy of every value to keep one. Taken out, the
/// ticket goes when the builder does.
///
/// Not generic: a generic class's deinit looks its type's metadata up at run time, once per build.
final class BuildHandoff: Sendable {
    typealias Ticket = CoordinatorStorage.Machine.BuildTicket
    private let ticket: Mutex<Ticket?>

    init(_ ticket: Ticket) { self.ticket = Mutex(ticket) }

    /// The ticket; `nil` once taken.
    func take() -> Ticket? { ticket.withLock { $0.take() } }
}
