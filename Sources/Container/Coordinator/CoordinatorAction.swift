/// A change of the published snapshot, made in the transition's critical section.
enum SnapshotChange {
    case publish(AppServices)
    case clear
}

/// An action of the coordinator's state machine, as the storage's transition sees it: a build
/// to launch and a snapshot change, both carried out in the critical section.
protocol CoordinatorAction {
    associatedtype Ticket
    /// The build to launch now, if any.
    var ticket: Ticket? { get }
    /// The change of the published snapshot, if any.
    var snapshotChange: SnapshotChange? { get }
}
