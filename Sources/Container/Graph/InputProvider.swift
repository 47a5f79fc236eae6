/// The provider of an input service: it makes nothing, it waits for the value the app supplies
/// with ``ServiceContainer/supply(_:_:)`` (see <doc:DemandDrivenStartUp>).
///
/// ```swift
/// let specs = [
///     ServiceSpec.input(.deviceToken),
///     ServiceSpec(.pushRegistration, dependsOn: .deviceToken) { PushRegistration(token: try $0[.deviceToken]) },
/// ]
/// ```
package struct InputProvider<Value: Sendable>: ServiceProvider {
    /// `input`, the id a config file names it by.
    public let id = "input"

    /// An input of type `Value`.
    public init() {}

    /// Waits for the value of the service being built; cancellable.
    public func make(_ context: ProviderContext) async throws -> Value {
        try await context.inputValue(as: Value.self)
    }
}

/// Marks the input provider, whatever its value type.
protocol InputProviding {}
extension InputProvider: InputProviding {}

extension ServiceSpec {
    /// An input service: its value is supplied by the app at run time
    /// (``ServiceContainer/supply(_:_:)``); requests that need it wait for it. Lazy by default,
    /// so `start()` waits for it only when an eager service depends on it.
    public static func input<Value: Sendable>(
        _ key: ServiceKey<Value>, start: StartPolicy = .lazy, location: ConfigLocation? = nil
    ) -> ServiceSpec {
        var spec = ServiceSpec(name: key.name, provider: InputProvider<Value>())
        spec.start = start
        spec.location = location
        return spec
    }
}
