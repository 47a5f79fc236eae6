extension ScopeInstance {
    /// The snapshots the instance publishes, as it publishes them (each generation and each
    /// growth; newest first for a slow consumer); it ends when the instance is closed, and goes
    /// on after a supersession with the snapshots built on the app's new generation (see
    /// <doc:ObservingTheServices>).
    public var snapshots: AppServices.Updates { AppServices.Updates(feed: core.feeds.snapshots) }

    /// The successive values of the service of `key` in the instance's snapshots (see
    /// <doc:ObservingTheServices>).
    public func values<Value>(of key: ServiceKey<Value>) -> AppServices.ValueUpdates<Value> {
        AppServices.ValueUpdates(snapshots: snapshots, key: key)
    }

    /// The instance's status (a ``ContainerStatus``) now, then after each change of its state, until it is closed
    /// (see <doc:ObservingTheServices>).
    public var statusUpdates: ContainerStatus.Updates {
        ContainerStatus.Updates(changes: core.feeds.status) { [core] in core.status }
    }
}
