extension ServiceContainer {
    /// The longest scope instance id, in UTF-8 bytes.
    public static let maximumScopeIDLength = 256

    /// Opens an instance of the scope `name` (see <doc:Scopes>), named `id`, with `parameters` for its
    /// providers. Nothing is built until its ``ScopeInstance/start(as:)``.
    ///
    /// ```swift
    /// let window = try container.openScope("scene", id: "window-1", parameters: [.set(.windowID, to: "window-1")])
    /// ```
    ///
    /// - Throws: ``ContainerError`` `.unknownScope` (with a suggestion), `.scopeAlreadyOpen` for
    ///   an open instance with the same id, `.invalidScope` for an empty or too long id (at most
    ///   ``maximumScopeIDLength`` bytes, no control characters) or more than
    ///   ``ScopeParameters/maximumCount`` parameters, `.shutDown` once the container shuts down.
    public func openScope(
        _ name: String, id: String, parameters: ScopeParameters = []
    ) throws(ContainerError) -> ScopeInstance {
        // Shut down: refused as such, before the arguments are looked at.
        if let refusal = core.refusal { throw refusal }
        let declared = core.declared
        guard declared.scopeParts[name] != nil else { throw .unknownScope(name, known: declared.scopeNames) }
        if id.isEmpty || id.utf8.count > Self.maximumScopeIDLength
            || id.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        {
            throw .invalidScope(
                "a scope instance id must be 1 to \(Self.maximumScopeIDLength) bytes without control characters; "
                    + "got \(id.utf8.count) bytes")
        }
        if parameters.count > ScopeParameters.maximumCount {
            throw .invalidScope(
                "scope instance '\(name)#\(id)' has \(parameters.count) parameters; at most "
                    + "\(ScopeParameters.maximumCount) are allowed")
        }
        let instance = ScopeInstance(core: try core.openChild(scope: name, id: id, parameters: parameters))
        core.tracer.emit(.scopeOpened, build: BuildAttempt(generation: 1, attempt: 1), scope: instance.label)
        return instance
    }

    /// The labels of the open scope instances (`push#notification-42`), in the order they opened.
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
