extension ServiceContainer {
    /// The snapshots the container publishes, as it publishes them: each generation (after a
    /// `start()`, a reset, a reload) and each growth of one (a request that built more); newest
    /// first for a slow consumer; it ends at the shutdown (see <doc:ObservingTheServices>).
    public var snapshots: AppServices.Updates { AppServices.Updates(feed: core.feeds.snapshots) }

    /// The successive values of the service of `key`: one each time a published snapshot holds
    /// a value of it other than the last one given (see <doc:ObservingTheServices>).
    public func values<Value>(of key: ServiceKey<Value>) -> AppServices.ValueUpdates<Value> {
        AppServices.ValueUpdates(snapshots: snapshots, key: key)
    }

    /// The container's ``status`` now, then after each change of its state, until the shutdown
    /// (see <doc:ObservingTheServices>).
    public var statusUpdates: ContainerStatus.Updates {
        ContainerStatus.Updates(changes: core.feeds.status) { [core] in core.status }
    }
}
