public import Container

// Declaring the standard providers' services in code: the same provider, options and checks
// as a config file's `{"name": ..., "provider": ..., "options": {...}}` (see the "Declaring
// services in code" article).
extension ServiceSpec {
    /// Declares a `configuration` service in code: the app's settings, read from a JSON file.
    ///
    /// The same as a config's `{"name": "configuration", "provider": "configuration",
    /// "options": {"path": ...}}`, with ``ConfigurationProvider`` given inline (no registry needed).
    ///
    /// - Parameters:
    ///   - key: the service's name, of type ``AppConfiguration``; usually `.configuration`.
    ///   - options: the settings file.
    ///   - dependencies: services that must succeed first, as typed keys (checked by validation).
    ///   - timeout: the longest one run may take (`timeoutMs`); `nil`: no limit.
    ///   - retry: retries of transient failures within one build (`retry`); none by default.
    ///   - defaultFailure: how errors that do not classify themselves count (`failure`).
    ///   - lifetime: the app (default) or a scope (`scope`).
    ///   - group: the group the value is contributed to (`group`), if any.
    ///   - fileID: where the spec is declared, for error messages; leave the default.
    ///   - line: where the spec is declared, for error messages; leave the default.
    public static func configuration<each Dependency: Sendable>(
        _ key: ServiceKey<AppConfiguration>, _ options: ConfigurationOptions,
        dependsOn dependencies: repeat ServiceKey<each Dependency>, timeout: Duration? = nil,
        retry: RetryPolicy = .none, defaultFailure: FailureKind? = nil, lifetime: ServiceSpec.Lifetime = .app,
        group: String? = nil, fileID: String = #fileID, line: Int = #line
    ) -> ServiceSpec {
        var typed: [AnyServiceKey] = []
        for dependency in repeat each dependencies { typed.append(dependency.erased) }
        return standard(
            key.name, ConfigurationProvider(), options.serviceOptions, typed, timeout, retry, defaultFailure, lifetime,
            group, ConfigLocation(file: fileID, line: line))
    }

    /// Declares a `sqlite` service in code: a SQLite database with its migrations.
    ///
    /// ```swift
    /// let container = try ServiceContainer([
    ///     .configuration(.configuration, ConfigurationOptions(path: settingsPath)),
    ///     .sqlite(
    ///         .database, SQLiteOptions(path: databasePath, migrations: MyApp.migrations),
    ///         dependsOn: .configuration, timeout: .seconds(5)),
    ///     .session(.session, dependsOn: .database),
    /// ])
    /// ```
    ///
    /// The same as a config's `{"name": "database", "provider": "sqlite", "options": {...}}`
    /// with the options ``SQLiteOptions/serviceOptions`` writes, and ``SQLiteProvider`` (default
    /// schema ``Migration/standard``) given inline: its options are read and checked by the same
    /// ``SQLiteProvider/settings(from:)`` when the graph is validated.
    ///
    /// - Parameters:
    ///   - key: the service's name, of type ``Database``; usually `.database`.
    ///   - options: the file, its migrations, busy timeout and file protection.
    ///   - dependencies: services that must succeed first, as typed keys (checked by validation).
    ///   - timeout: the longest one run may take (`timeoutMs`); `nil`: no limit.
    ///   - retry: retries of transient failures within one build (`retry`); none by default.
    ///   - defaultFailure: how errors that do not classify themselves count (`failure`).
    ///   - lifetime: the app (default) or a scope (`scope`).
    ///   - group: the group the value is contributed to (`group`), if any.
    ///   - fileID: where the spec is declared, for error messages; leave the default.
    ///   - line: where the spec is declared, for error messages; leave the default.
    public static func sqlite<each Dependency: Sendable>(
        _ key: ServiceKey<Database>, _ options: SQLiteOptions,
        dependsOn dependencies: repeat ServiceKey<each Dependency>,
        timeout: Duration? = nil, retry: RetryPolicy = .none, defaultFailure: FailureKind? = nil,
        lifetime: ServiceSpec.Lifetime = .app, group: String? = nil, fileID: String = #fileID, line: Int = #line
    ) -> ServiceSpec {
        var typed: [AnyServiceKey] = []
        for dependency in repeat each dependencies { typed.append(dependency.erased) }
        return standard(
            key.name, SQLiteProvider(), options.serviceOptions, typed, timeout, retry, defaultFailure, lifetime, group,
            ConfigLocation(file: fileID, line: line))
    }

    /// Declares a `session` service in code: the signed-in session, restored from a database.
    ///
    /// The same as a config's `{"name": "session", "provider": "session", "dependsOn": [...]}`,
    /// with ``SessionProvider`` given inline. The service must depend on the database it reads
    /// (``SessionOptions/database``, `database` by default): `.session(.session, dependsOn: .database)`.
    ///
    /// - Parameters:
    ///   - key: the service's name, of type ``Session``; usually `.session`.
    ///   - options: the database service to read; `database` by default.
    ///   - dependencies: services that must succeed first, as typed keys: the database among them.
    ///   - timeout: the longest one run may take (`timeoutMs`); `nil`: no limit.
    ///   - retry: retries of transient failures within one build (`retry`); none by default.
    ///   - defaultFailure: how errors that do not classify themselves count (`failure`).
    ///   - lifetime: the app (default) or a scope (`scope`).
    ///   - group: the group the value is contributed to (`group`), if any.
    ///   - fileID: where the spec is declared, for error messages; leave the default.
    ///   - line: where the spec is declared, for error messages; leave the default.
    public static func session<each Dependency: Sendable>(
        _ key: ServiceKey<Session>, _ options: SessionOptions = SessionOptions(),
        dependsOn dependencies: repeat ServiceKey<each Dependency>, timeout: Duration? = nil,
        retry: RetryPolicy = .none, defaultFailure: FailureKind? = nil, lifetime: ServiceSpec.Lifetime = .app,
        group: String? = nil, fileID: String = #fileID, line: Int = #line
    ) -> ServiceSpec {
        var typed: [AnyServiceKey] = []
        for dependency in repeat each dependencies { typed.append(dependency.erased) }
        return standard(
            key.name, SessionProvider(), options.serviceOptions, typed, timeout, retry, defaultFailure, lifetime, group,
            ConfigLocation(file: fileID, line: line))
    }

    /// The spec a config declares for a standard provider, with the provider inline.
    private static func standard<Provider: ServiceProvider>(
        _ name: String, _ provider: Provider, _ options: ServiceOptions, _ dependencies: [AnyServiceKey],
        _ timeout: Duration?, _ retry: RetryPolicy, _ defaultFailure: FailureKind?, _ lifetime: ServiceSpec.Lifetime,
        _ group: String?, _ location: ConfigLocation
    ) -> ServiceSpec {
        var spec = ServiceSpec(
            name: name, provider: provider, dependsOn: dependencies.map(\.name), options: options, timeout: timeout,
            retry: retry, defaultFailure: defaultFailure, location: location)
        spec.lifetime = lifetime
        spec.group = group
        spec.typedDependencies = dependencies
        return spec
    }
}
