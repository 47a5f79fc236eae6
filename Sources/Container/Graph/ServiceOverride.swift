extension ServiceGraph {
    /// A replacement for one service of a graph, for a test or a preview: a fixed value, another
    /// provider, or a closure. Apply overrides with ``ServiceGraph/overriding(_:)`` or
    /// ``ServiceContainer/init(graph:overrides:policy:trace:)``.
    ///
    /// ```swift
    /// // With the Plugins module's services: its `Database` and `Session`.
    /// let container = try ServiceContainer(graph: config.graph, overrides: [
    ///     .value(.database, try Database(path: ":memory:")),  // a fixed value
    ///     .make(.session) { _ in Session.signedOut },         // a closure instead of the provider
    /// ])
    /// ```
    ///
    /// The key's type is checked against the service's: a replacement must make what the service's
    /// readers expect (else a ``GraphError`` `typeMismatch` naming both types). An override keeps
    /// the service's dependencies, options, lifetime, timeout and retry unless it gives its own
    /// (`dependsOn: []` drops the dependencies of a fixed value). The trace marks the `node.started`
    /// of a replaced service as an override.
    public struct Override: Sendable {
        /// The id of the providers an override makes from a value or a closure.
        static let providerID = "override"

        /// The service replaced.
        public let service: String
        /// The replacement provider.
        let provider: AnyServiceProvider
        /// The new dependencies, or `nil` to keep the service's.
        let dependsOn: [String]?
        /// The new options, or `nil` to keep the service's.
        let options: ServiceOptions?
        /// The new lifetime, or `nil` to keep the service's.
        let lifetime: ServiceSpec.Lifetime?
        /// Where the override was written, for error messages.
        public let location: ConfigLocation?

        private init(
            _ service: String, provider: AnyServiceProvider, dependsOn: [String]?, options: ServiceOptions? = nil,
            lifetime: ServiceSpec.Lifetime?, fileID: String, line: Int
        ) {
            self.service = service
            self.provider = provider
            self.dependsOn = dependsOn
            self.options = options
            self.lifetime = lifetime
            self.location = ConfigLocation(file: fileID, line: line)
        }

        /// The service of `key` is `value`, made by no provider (and never torn down: the caller owns it).
        /// It is synchronous: a service that `resolveNow` reads, or one declared `sync`, stays so.
        ///
        /// - Parameters:
        ///   - key: the service, with the type its readers expect.
        ///   - value: the value every snapshot holds for it.
        ///   - dependsOn: its dependencies; `nil` (default) keeps the service's, `[]` drops them.
        ///   - fileID: the caller's file, for the location of errors about the override (default: the call site).
        ///   - line: the caller's line (default: the call site).
        public static func value<Value: Sendable>(
            _ key: ServiceKey<Value>, _ value: Value, dependsOn: [String]? = nil, fileID: String = #fileID,
            line: Int = #line
        ) -> ServiceGraph.Override {
            ServiceGraph.Override(
                key.name, provider: AnyServiceProvider(SynchronousClosureProvider(id: Self.providerID) { _ in value }),
                dependsOn: dependsOn, lifetime: nil, fileID: fileID, line: line)
        }

        /// The service of `key` is made by `provider` (with its teardown, classification and option checks).
        ///
        /// - Parameters:
        ///   - key: the service, with the type its readers expect.
        ///   - provider: the replacement; it must make the key's type.
        ///   - dependsOn: its dependencies; `nil` (default) keeps the service's.
        ///   - options: its options; `nil` (default) keeps the service's (checked by the new provider).
        ///   - lifetime: its lifetime; `nil` (default) keeps the service's.
        ///   - fileID: the caller's file, for the location of errors about the override (default: the call site).
        ///   - line: the caller's line (default: the call site).
        public static func provider<Provider: ServiceProvider>(
            _ key: ServiceKey<Provider.Value>, _ provider: Provider, dependsOn: [String]? = nil,
            options: ServiceOptions? = nil, lifetime: ServiceSpec.Lifetime? = nil, fileID: String = #fileID,
            line: Int = #line
        ) -> ServiceGraph.Override {
            ServiceGraph.Override(
                key.name, provider: AnyServiceProvider(provider), dependsOn: dependsOn, options: options,
                lifetime: lifetime, fileID: fileID, line: line)
        }

        /// The service of `key` is made by the synchronous `make`, like a service declared with
        /// ``ServiceSpec/synchronous(_:dependsOn:options:lifetime:group:start:sync:tearDown:fileID:line:make:)``:
        /// the replacement of a service that `resolveNow` reads, or that is declared `sync`, must
        /// be synchronous too.
        ///
        /// ```swift
        /// .synchronous(.settings) { _ in Settings(theme: .dark) }
        /// ```
        ///
        /// - Parameters:
        ///   - key: the service, with the type its readers expect.
        ///   - dependsOn: the services `make` reads; `nil` (default) keeps the service's.
        ///   - lifetime: its lifetime; `nil` (default) keeps the service's.
        ///   - tearDown: releases the value when its generation is retired.
        ///   - fileID: the caller's file, for the location of errors about the override (default: the call site).
        ///   - line: the caller's line (default: the call site).
        ///   - make: makes the value, without suspending.
        public static func synchronous<Value: Sendable>(
            _ key: ServiceKey<Value>, dependsOn: [String]? = nil, lifetime: ServiceSpec.Lifetime? = nil,
            tearDown: (@Sendable (Value) async throws -> Void)? = nil, fileID: String = #fileID, line: Int = #line,
            _ make: @escaping @Sendable (ProviderContext) throws -> Value
        ) -> ServiceGraph.Override {
            ServiceGraph.Override(
                key.name,
                provider: AnyServiceProvider(
                    SynchronousClosureProvider(id: Self.providerID, tearDown: tearDown, make: make)),
                dependsOn: dependsOn, lifetime: lifetime, fileID: fileID, line: line)
        }

        /// The service of `key` is made by `make`, like a service declared in code.
        ///
        /// - Parameters:
        ///   - key: the service, with the type its readers expect.
        ///   - dependsOn: the services `make` reads; `nil` (default) keeps the service's.
        ///   - lifetime: its lifetime; `nil` (default) keeps the service's.
        ///   - tearDown: releases the value when its generation is retired.
        ///   - fileID: the caller's file, for the location of errors about the override (default: the call site).
        ///   - line: the caller's line (default: the call site).
        ///   - make: makes the value.
        public static func make<Value: Sendable>(
            _ key: ServiceKey<Value>, dependsOn: [String]? = nil, lifetime: ServiceSpec.Lifetime? = nil,
            tearDown: (@Sendable (Value) async throws -> Void)? = nil, fileID: String = #fileID, line: Int = #line,
            _ make: @escaping @Sendable (ProviderContext) async throws -> Value
        ) -> ServiceGraph.Override {
            ServiceGraph.Override(
                key.name,
                provider: AnyServiceProvider(
                    closure: ClosureProvider(id: Self.providerID, tearDown: tearDown, make: make)),
                dependsOn: dependsOn, lifetime: lifetime, fileID: fileID, line: line)
        }
    }
}

extension ServiceGraph.Override {
    /// `declaration` with this override's provider and whatever else it gives. The service keeps
    /// its group, timeout, retry and failure classification; typed dependencies are kept where
    /// the new `dependsOn` still names them. Problems of the result are the override's to fix.
    func applied(to declaration: ServiceSpec) -> ServiceSpec {
        var spec = declaration
        spec.provider = .inline(provider)
        if let dependsOn {
            spec.dependsOn = dependsOn
            spec.typedDependencies = declaration.typedDependencies.filter { dependsOn.contains($0.name) }
        }
        spec.options = options ?? spec.options
        spec.lifetime = lifetime ?? spec.lifetime
        spec.location = location
        return spec
    }
}
