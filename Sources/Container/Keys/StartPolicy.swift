/// When a service is built: with `start()`, after the first frame, or only when something needs it.
///
/// A service's dependencies are built whenever it is, whatever their own policy (see
/// <doc:DemandDrivenStartUp>). Declared in code (``ServiceSpec/start``) or in a config file
/// (`"start": "lazy"`).
public enum StartPolicy: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Built by ``ServiceContainer/start(as:)`` (the default).
    case eager
    /// Not built by `start()`; built at background priority by ``ServiceContainer/startDeferred(as:)``
    /// (typically after the first frame), or sooner by a request that needs it.
    case deferred
    /// Built only when a request needs it (``ServiceContainer/start(needs:as:)-([AnyServiceKey],_)``, an entry point
    /// that declares it, ``ServiceContainer/service(_:as:)``, or a service that depends on it).
    case lazy

    public var description: String { rawValue }
}
