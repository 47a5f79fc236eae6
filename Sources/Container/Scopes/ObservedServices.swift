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
/// (an unrelated service was rebuilt) tells no one who read only it. A reset or reload retires
/// the snapshot at once: the services it rebuilds read `nil` until the new generation's
/// snapshot, those it carries over keep their value. Reading ``snapshot`` or ``generation``
/// tracks every new snapshot and every reset or reload. It updates on the main actor; it stops
/// following when the container shuts down (the instance closes), when ``stop()`` is called, or
/// when it is released.
@MainActor
public final class ObservedServices: Observable {
    /// The newest published snapshot; `nil` before the first and from a reset or reload to the
    /// next publication.
    private var newest: AppServices?
    /// What the services read: `newest`, or from a reset or reload, the values shown before it
    /// that the new generation carried over.
    private var shown: AppServices?
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

    init(following snapshots: AppServices.Updates) {
        // Subscribed now, not when the task first runs; told of resets and reloads too.
        let changes = FeedSubscription(snapshots.feed, takingClears: true)
        follower.start { [weak self] in
            while let change = await changes.next() {
                guard let self else { return }
                self.apply(change)
            }
        }
    }

    deinit { follower.stop() }

    /// The newest snapshot; `nil` before the first one, and from a reset or reload until its new
    /// generation's snapshot. Reading it tracks every new snapshot, reset and reload.
    public var snapshot: AppServices? {
        registrar.access(self, keyPath: \.snapshot)
        return newest
    }

    /// The newest snapshot's generation (tracks like ``snapshot``).
    public var generation: Int? { snapshot?.generation }

    /// The service of `key` in the newest snapshot; `nil` when it does not hold it (not built
    /// yet, of another type, or retired by a reset or reload since). Reading it tracks that
    /// service alone.
    public subscript<Value>(key: ServiceKey<Value>) -> Value? {
        registrar.access(self, keyPath: \.[tracking: key.name])
        return shown?.numberedValue(of: key)?.value
    }

    /// Stops following: later snapshots change nothing here.
    public func stop() { follower.stop() }

    /// What each service's tracking reads: the number of its value shown.
    private subscript(tracking name: String) -> UInt64? {
        shown.flatMap { $0.valueNumber(named: name) }
    }

    /// Applies a change of the snapshot: observers of the snapshot, and of each service whose
    /// value it changed, are told.
    private func apply(_ change: SnapshotChange) {
        let previous = shown
        switch change {
        case .publish(let snapshot):
            registrar.withMutation(of: self, keyPath: \.snapshot) { newest = snapshot }
            shown = snapshot
        case .newGeneration(let carried):
            // Told once, by the first reset or reload after a publication.
            if newest != nil { registrar.withMutation(of: self, keyPath: \.snapshot) { newest = nil } }
            // What it showed, less what the new generation retired (never a value it did not show).
            shown = previous?.keeping(carried)
        case .clear:
            // Not offered (the feed ends with the shutdown): the view keeps what it showed.
            return
        }
        let changed = shown.map { $0.serviceNames(changedFrom: previous) } ?? previous?.serviceNames ?? []
        for name in changed {
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

extension AppServices {
    /// The values of this snapshot that `carried` holds too (the same value under the same
    /// name), as a snapshot of `carried`'s generation and layout.
    fileprivate func keeping(_ carried: AppServices) -> AppServices {
        var kept = SlotValues()
        carried.values.forEach { slot, box in
            if let mine = layout.slots[carried.layout.names[slot]].flatMap(values.value(at:)), mine === box {
                kept[slot] = box
            }
        }
        return AppServices(
            generation: carried.generation, report: carried.report, layout: carried.layout, values: kept,
            scope: carried.scope, appGeneration: carried.appGeneration, holdsEager: false)
    }
}
