/// The erased form of one provider, shared by every copy of its ``AnyServiceProvider`` (whose
/// members of the same names it answers).
protocol ErasedProvider: AnyObject, Sendable {
    var id: String { get }
    var valueType: any Sendable.Type { get }
    var requirements: [AnyServiceKey] { get }
    var isInput: Bool { get }
    var isolation: ServiceSpec.Isolation { get }
    /// The boxed ``SynchronousServiceProvider/makeNow(_:)`` of a synchronous provider.
    var makeNow: (@Sendable (ProviderContext) throws -> AnyServiceBox)? { get }
    nonisolated(nonsending) func make(_ context: ProviderContext) async throws -> AnyServiceBox
    func classify(_ error: any Error) -> FailureKind?
    func settings(_ options: ServiceOptions) throws -> (any Sendable)?
}

/// `Provider` erased: it makes the provider's values in their boxes, with the teardown the box
/// runs. A plain provider (a closure provider) is known to be neither an input nor synchronous,
/// to take its options as they are and to classify no error, so no dynamic cast asks (each looks
/// generic metadata up, for every service of a graph).
final class ProviderBox<Provider: ServiceProvider>: ErasedProvider {
    private let provider: Provider
    private let tearDown: (nonisolated(nonsending) @Sendable (Provider.Value) async throws -> Void)?
    private let isPlain: Bool
    /// The values' box type, looked up once: named in `make`, it would be looked up (hashed) in
    /// the runtime's metadata cache on every node run.
    private let boxType: ServiceBox<Provider.Value>.Type
    let id: String
    let valueType: any Sendable.Type
    let requirements: [AnyServiceKey]
    let isInput: Bool
    let isolation: ServiceSpec.Isolation
    let makeNow: (@Sendable (ProviderContext) throws -> AnyServiceBox)?

    init(
        _ provider: Provider, tearDown: (nonisolated(nonsending) @Sendable (Provider.Value) async throws -> Void)?,
        isPlain: Bool
    ) {
        self.provider = provider
        self.tearDown = tearDown
        self.isPlain = isPlain
        boxType = ServiceBox<Provider.Value>.self
        id = provider.id
        valueType = Provider.Value.self
        requirements = provider.requirements
        isInput = !isPlain && provider is any InputProviding
        isolation = provider.isolation
        makeNow = isPlain ? nil : (provider as? any SynchronousServiceProvider).map { Self.maker(of: $0) }
    }

    nonisolated(nonsending) func make(_ context: ProviderContext) async throws -> AnyServiceBox {
        Self.box(try await provider.make(context), as: boxType, for: context, tearDown: tearDown)
    }

    func classify(_ error: any Error) -> FailureKind? {
        isPlain ? nil : provider.classify(error)
    }

    func settings(_ options: ServiceOptions) throws -> (any Sendable)? {
        guard !isPlain else { return nil }
        let settings = try provider.settings(from: options)
        if let same = settings as? ServiceOptions, same == options { return nil }
        return settings
    }

    /// ``makeNow`` of a synchronous provider, its value boxed like ``make``'s.
    private static func maker<Synchronous: SynchronousServiceProvider>(
        of provider: Synchronous
    ) -> @Sendable (ProviderContext) throws -> AnyServiceBox {
        let boxType = ServiceBox<Synchronous.Value>.self
        var release: (nonisolated(nonsending) @Sendable (Synchronous.Value) async throws -> Void)?
        if let tearDown = provider.tearDown { release = tearDown }
        let tearDown = release
        return { context in box(try provider.makeNow(context), as: boxType, for: context, tearDown: tearDown) }
    }

    /// `value` in its box, as the node of `context` made it (`boxType`: looked up by the caller once).
    private static func box<Value>(
        _ value: Value, as boxType: ServiceBox<Value>.Type, for context: ProviderContext,
        tearDown: (nonisolated(nonsending) @Sendable (Value) async throws -> Void)?
    ) -> AnyServiceBox {
        boxType.init(
            value, name: context.serviceName,
            builtIn: BuildAttempt(generation: context.generation, attempt: context.attempt),
            onMainActor: context.node.runsOnMainActor, tearDown: tearDown)
    }
}
