extension ScopeInstance {
    /// Opens an instance of `name`, a scope nested in this instance's (see <doc:Scopes>), named
    /// `id`: it sees this instance's services and those of its parent chain, reads the
    /// parameters of the chain it does not set itself, is superseded when anything it uses up
    /// the chain is retired, and is closed before this instance.
    ///
    /// ```swift
    /// let account = try container.openScope("account", id: "ada", parameters: [.set(.userID, to: "ada")])
    /// let window = try account.openScope("scene", id: "window-1")   // label "account#ada/scene#window-1"
    /// ```
    ///
    /// - Throws: ``ContainerError`` `.unknownScope` (with a suggestion), `.invalidScope` for a
    ///   scope that is not nested in this one or an id or parameters that are not allowed (as
    ///   ``ServiceContainer/openScope(_:id:parameters:)``), `.scopeAlreadyOpen`, `.closed` once
    ///   this instance is closed.
    public func openScope(_ name: String, id: String, parameters: ScopeParameters = []) throws(ContainerError)
        -> ScopeInstance
    {
        try Self.open(name, id: id, parameters: parameters, on: core, declared: link.root.declared)
    }

    /// The open instances of `scope` opened from this instance (or, for a scope nested deeper,
    /// from its nested instances), parents first, each level in the order it opened.
    public func openInstances(of scope: String) -> [ScopeInstance] {
        core.openInstances(of: scope).map(ScopeInstance.init(core:))
    }

    /// The open instances of `scope` below this instance now, then after each change to them;
    /// it ends when this instance is closed (see ``ServiceContainer/instanceUpdates(of:)``).
    public func instanceUpdates(of scope: String) -> Updates {
        Updates(changes: core.feeds.instances) { [core] in
            core.openInstances(of: scope).map(ScopeInstance.init(core:))
        }
    }

    /// The scope instance this one was opened from, or `nil` for an instance of a top-level scope.
    public var parent: ScopeInstance? {
        link.parent.link == nil ? nil : ScopeInstance(core: link.parent)
    }

    /// Opens an instance of `name` on `core` (the app's, or a parent instance's), checking the
    /// arguments against the whole `declared` graph.
    static func open(
        _ name: String, id: String, parameters: ScopeParameters, on core: CoordinatorCore, declared: ServiceGraph
    ) throws(ContainerError) -> ScopeInstance {
        // Shut down or closed: refused as such, before the arguments are looked at.
        if let refusal = core.refusal { throw refusal }
        guard declared.scopeParts[name] != nil else { throw .unknownScope(name, known: declared.scopeNames) }
        let here = core.link?.scope
        let parent = declared.parentScope(of: name)
        guard parent == here else {
            let from = core.link.map { "instance '\($0.label)' of scope '\($0.scope)'" } ?? "the container"
            let remedy =
                parent.map { "open it from an instance of '\($0)' (instance.openScope(\"\(name)\", id: ...))" }
                ?? "open it from the container (container.openScope(\"\(name)\", id: ...))"
            throw .invalidScope(
                "scope '\(name)' cannot be opened from \(from): it is "
                    + (parent.map { "nested in '\($0)'" } ?? "a top-level scope") + "; \(remedy)")
        }
        if id.isEmpty || id.utf8.count > ServiceContainer.maximumScopeIDLength {
            throw .invalidScope(
                "a scope instance id must be 1 to \(ServiceContainer.maximumScopeIDLength) bytes; got "
                    + "\(id.utf8.count) bytes")
        }
        // `#` and `/` separate the parts of a label (`account#ada/scene#w1`): an id holding one
        // could take the label of another instance.
        if let bad = id.unicodeScalars.first(where: { NameRules.isControl($0) || $0 == "#" || $0 == "/" }) {
            let what = NameRules.isControl(bad) ? "the control character \(NameRules.codePoint(bad))" : "'\(bad)'"
            throw .invalidScope(
                "scope instance id '\(NameRules.visible(id))' contains \(what); an id may not hold control "
                    + "characters, '#' or '/' (they separate the parts of an instance's label, "
                    + "account#ada/scene#window-1): use '-' or '_' instead")
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
}
