public import Observation

/// An `Observable` view of a container's or scope instance's services: it follows the newest
/// published snapshot, so a SwiftUI view (or any `withObservationTracking` code) that reads a
/// service through it is told when that service changes: after an account switch, a reload, a
/// reset (see <doc:ObservingTheServices>).
///
/// ```swift
/// let services = ObservedServices(container)
/// // In a SwiftUI view's body:
/// Text(services[.session]?.userName ?? "signed out")
/// ```
///
/// Reading `services[key]` tracks that service alone: a new snapshot that keeps its value
/// (an unrelated service was rebuilt) tells no one who read only it. Reading ``snapshot`` or
/// ``generation`` tracks every new snapshot. It updates on the main actor; it stops following
/// when the container shuts down (the instance closes), when ``stop()`` is called, or when it
/// is released.
@MainActor
public final class ObservedServices: Observable {
    private var newest: AppServices?
    private let registrar = ObservationRegistrar()
    private let follower = Follower()

    /// Follows the snapshots of `container`.
    public convenience init(_ container: ServiceContainer) {
        self.init(following: container.snapshots)
    }

    /// Follows the snapshots of the scope instance `instance`.
    public convenience init(_ instance: ScopeInstance) {
        self.init(following: instance.snapshots)
    }

    init(following snapshots: SnapshotUpdates) {
        let updates = snapshots.makeAsyncIterator()
        follower.start { [weak self] in
            var updates = updates
            while let snapshot = await updates.next() {
                guard let self else { return }
                self.apply(snapshot)
            }
        }
    }

    deinit { follower.stop() }

    /// The newest snapshot; `nil` before the first one, and while a reset's new generation is
    /// not built yet. Reading it tracks every new snapshot.
    public var snapshot: AppServices? {
        registrar.access(self, keyPath: \.snapshot)
        return newest
    }

    /// The newest snapshot's generation (tracks every new snapshot, like ``snapshot``).
    public var generation: Int? { snapshot?.generation }

    /// The service of `key` in the newest snapshot; `nil` when it does not hold it (not built
    /// yet, or of another type). Reading it tracks that service alone.
    public subscript<Value>(key: ServiceKey<Value>) -> Value? {
        registrar.access(self, keyPath: \.[tracking: key.name])
        return newest?.numberedValue(of: key)?.value
    }

    /// Stops following: later snapshots change nothing here.
    public func stop() { follower.stop() }

    /// What each service's tracking reads: the number of its value in the newest snapshot.
    private subscript(tracking name: String) -> UInt64? {
        newest.flatMap { $0.valueNumber(named: name) }
    }

    /// Takes `snapshot` as the newest: observers of the snapshot, and of each service whose
    /// value it changed, are told.
    private func apply(_ snapshot: AppServices) {
        let previous = newest
        registrar.withMutation(of: self, keyPath: \.snapshot) { newest = snapshot }
        for name in snapshot.serviceNames(changedFrom: previous) {
            registrar.withMutation(of: self, keyPath: \.[tracking: name]) {}
        }
    }
}

extension ObservedServices {
    /// The task that follows the snapshots, cancelled when the view stops or is released (a
    /// deinit cannot touch main-actor state; this box is `Sendable`).
    private final class Follower: Sendable {
        private let task = Locked<Task<Void, Never>?>(nil)

        func start(_ body: @escaping @MainActor @Sendable () async -> Void) {
            let started = Task { @MainActor in await body() }
            task.withLock { $0 = started }
        }

        func stop() {
            let running = task.withLock { task -> Task<Void, Never>? in
                defer { task = nil }
                return task
            }
            running?.cancel()
        }
    }
}
