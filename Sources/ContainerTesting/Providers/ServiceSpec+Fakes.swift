public import Container

extension ServiceSpec {
    /// Declares the service of `key`, made by a fake provider.
    ///
    /// ```swift
    /// let database = FakeProvider.succeeding(Database.inMemory)
    /// let container = try ServiceContainer([
    ///     .fake(.database, database),
    ///     .fake(.session, dependsOn: ["database"], .failing(.transient)),
    /// ])
    /// ```
    ///
    /// - Parameters:
    ///   - key: the service's name and value type.
    ///   - dependsOn: the services it depends on.
    ///   - lifetime: the app (default) or a scope.
    ///   - timeout: the longest one provider run may take.
    ///   - retry: retries of transient failures within one build.
    ///   - fileID: the caller's file, for the location of errors about the service (default: the call site).
    ///   - line: the caller's line (default: the call site).
    ///   - provider: the fake.
    public static func fake<Value: Sendable>(
        _ key: ServiceKey<Value>, dependsOn: [String] = [], lifetime: ServiceSpec.Lifetime = .app,
        timeout: Duration? = nil,
        retry: RetryPolicy = .none, fileID: String = #fileID, line: Int = #line, _ provider: FakeProvider<Value>
    ) -> ServiceSpec {
        var spec = ServiceSpec(
            name: key.name, provider: provider, dependsOn: dependsOn, timeout: timeout, retry: retry,
            location: ConfigLocation(file: fileID, line: line))
        spec.lifetime = lifetime
        return spec
    }

    /// Declares the service of `key`, made by `make`, appending the service's name to `log`
    /// before every call: `log.count(of: "database")` is how many times it was made.
    ///
    /// - Parameters:
    ///   - key: the service's name and value type.
    ///   - dependsOn: the services `make` reads.
    ///   - timeout: the longest one provider run may take.
    ///   - retry: retries of transient failures within one build.
    ///   - defaultFailure: how errors that do not classify themselves are classified.
    ///   - lifetime: the app (default) or a scope.
    ///   - start: when the service is built (eager by default).
    ///   - log: receives the service's name on every call.
    ///   - tearDown: releases the value when its generation is retired.
    ///   - fileID: the caller's file, for the location of errors about the service (default: the call site).
    ///   - line: the caller's line (default: the call site).
    ///   - make: makes the value.
    public static func counting<Value: Sendable>(
        _ key: ServiceKey<Value>, dependsOn: [String] = [], timeout: Duration? = nil, retry: RetryPolicy = .none,
        defaultFailure: FailureKind? = nil, lifetime: ServiceSpec.Lifetime = .app, start: StartPolicy = .eager,
        log: OrderLog,
        tearDown: (@Sendable (Value) async throws -> Void)? = nil, fileID: String = #fileID, line: Int = #line,
        make: @escaping @Sendable (ProviderContext) async throws -> Value
    ) -> ServiceSpec {
        let name = key.name
        return ServiceSpec(
            key, dependsOn: dependsOn, timeout: timeout, retry: retry, defaultFailure: defaultFailure,
            lifetime: lifetime, start: start, tearDown: tearDown, fileID: fileID, line: line
        ) { context in
            log.append(name)
            return try await make(context)
        }
    }
}
