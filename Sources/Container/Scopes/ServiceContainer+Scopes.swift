extension ServiceContainer {
    /// The longest scope instance id, in UTF-8 bytes.
    public static let maximumScopeIDLength = 256

    /// Opens an instance of the top-level scope `name` (see <doc:Scopes>), named `id`, with
    /// `parameters` for its providers. Nothing is built until its ``ScopeInstance/start(as:)``.
    /// Instances of a nested scope are opened from an instance of its parent
    /// (``ScopeInstance/openScope(_:id:parameters:)``).
    ///
    /// ```swift
    /// let window = try container.openScope("scene", id: "window-1", parameters: [.set(.windowID, to: "window-1")])
    /// ```
    ///
    /// - Throws: ``ContainerError`` `.unknownScope` (with a suggestion), `.scopeAlreadyOpen` for
    ///   an open instance with the same id, `.invalidScope` for an empty or too long id (at most
    ///   ``maximumScopeIDLength`` bytes, no control characters, `#` or `/`) or more than
    ///   ``ScopeParameters/maximumCount`` parameters or a nested scope, `.shutDown` once the
    ///   container shuts down.
    public func openScope(
        _ name: String, id: String, parameters: ScopeParameters = []
    ) throws(ContainerError) -> ScopeInstance {
        try ScopeInstance.open(name, id: id, parameters: parameters, on: core, declared: core.declared)
    }

    /// The labels of the open scope instances (`push#notification-42`), in the order they opened;
    /// nested ones after their parent (`account#ada/scene#window-1`).
    public var openScopes: [String] { core.openScopes }

    /// Runs a scoped entry point in `instance` (see ``ScopeInstance/run(_:)``).
    public func run<Entry: EntryPoint>(_ entryPoint: Entry, in instance: ScopeInstance) async throws -> Entry.Output {
        try await instance.run(entryPoint)
    }

    /// Opens an instance of `entryPoint`'s scope, runs the entry point in it, and closes it.
    ///
    /// ```swift
    /// let shown = try await container.run(PushEntryPoint(), scopeID: "notification-42", parameters: [.set(.itemID, to: "A-17")])
    /// ```
    /// - Throws: ``ContainerError`` `.invalidScope` when the entry point declares no scope, what
    ///   ``openScope(_:id:parameters:)`` throws, or what the run throws (the instance is closed anyway).
    public func run<Entry: EntryPoint>(
        _ entryPoint: Entry, scopeID: String, parameters: ScopeParameters = []
    ) async throws -> Entry.Output {
        guard let scope = entryPoint.scope else {
            throw ContainerError.invalidScope(
                "entry point '\(entryPoint.id)' declares no scope; run it with run(_:) on the app snapshot")
        }
        let instance = try openScope(scope, id: scopeID, parameters: parameters)
        do {
            let output = try await instance.run(entryPoint)
            _ = try? await instance.close()
            return output
        } catch {
            _ = try? await instance.close()
            throw error
        }
    }
}
