extension ServiceGraph {
    /// The scope checks of validation (see <doc:Scopes>): declared names and parents (known, no
    /// cycle, at most ``maximumScopeDepth`` deep), every service's scope, every edge between
    /// lifetimes, and the scopes of readers. Returns the valid declared scopes and, per scope,
    /// the services outside it that its readers require (they join the scope's part).
    static func checkScopes(
        declared: [Scope], specs: [ServiceSpec], accepted: [Int], dependencies: [[Int]],
        requirements: [ServiceGraph.Requirement], slots: [String: Int], issues: inout [GraphError.Issue]
    ) -> (scopes: [Scope], reads: [String: Set<String>]) {
        var scopes: [Scope] = []
        var names: [String] = []
        var known = Set<String>()
        // Declared but unusable (a bad name): their own error says so, so the services, parents
        // and readers naming them get none of their own.
        var rejected = Set<String>()
        var declaredIndex: [String: Int] = [:]
        for (index, scope) in declared.enumerated() {
            let location = scope.location ?? ConfigLocation(keyPath: "scopes[\(index)]")
            if let problem = scopeNameProblem(scope.name) {
                issues.append(
                    .init(
                        code: .invalidScope, message: "scope name \(describe(scope.name)) \(problem)",
                        location: location))
                rejected.insert(scope.name)
            } else if known.contains(scope.name) {
                issues.append(
                    .init(
                        code: .invalidScope, message: "scope '\(scope.name)' is declared twice; remove one",
                        location: location))
            } else {
                names.append(scope.name)
                known.insert(scope.name)
                declaredIndex[scope.name] = index
                scopes.append(scope)
            }
        }
        scopes = checkParents(
            of: scopes, names: names, declaredIndex: declaredIndex, rejected: rejected, issues: &issues)
        // A scope left out (a bad name, or a parent chain in error) cannot be checked further.
        let unusable = rejected.union(known.subtracting(scopes.map(\.name)))
        let lineage = ScopeLineage(scopes)
        let lifetimes = accepted.map { specs[$0].lifetime }
        for (slot, position) in accepted.enumerated() {
            let spec = specs[position]
            if let scope = spec.lifetime.scope, unusable.contains(scope) { continue }
            if let scope = spec.lifetime.scope, !known.contains(scope) {
                issues.append(
                    .init(
                        code: .undeclaredScope,
                        message: "service '\(spec.name)' lives in scope '\(scope)', which is not declared"
                            + undeclaredHint(scope, among: names),
                        service: spec.name, location: spec.location?.appending("scope")))
            }
            for (index, dependency) in dependencies[slot].enumerated() {
                let from = lifetimes[slot]
                let to = lifetimes[dependency]
                guard let target = to.scope, !unusable.contains(target), !lineage.sees(target, from: from.scope)
                else { continue }
                let dependent = specs[accepted[dependency]]
                let place = dependent.location.map { " (declared at \($0))" } ?? ""
                let location = spec.location?.appending("dependsOn").appending("[\(index)]")
                if lineage.sees(from.scope, from: target) {
                    // Inward: the dependent's scope (or the app) outlives the dependency's.
                    let who =
                        from.scope.map { "service '\(spec.name)' of scope '\($0)'" } ?? "app service '\(spec.name)'"
                    issues.append(
                        .init(
                            code: .captiveDependency,
                            message: "\(who) depends on '\(dependent.name)' of "
                                + "\(to)\(lineage.nesting(of: target))\(place), which it would outlive; make "
                                + "'\(spec.name)' live in \(to) too, or remove the dependency",
                            service: spec.name, location: location))
                } else {
                    issues.append(
                        .init(
                            code: .crossScopeDependency,
                            message: "service '\(spec.name)' of \(from) depends on '\(dependent.name)' "
                                + "of \(to)\(place); a scope sees only its own services and those of the scopes "
                                + "it is nested in (and the app's): depend on one of those instead, or move one of them",
                            service: spec.name, location: location))
                }
            }
        }
        var reads: [String: Set<String>] = [:]
        for requirement in requirements {
            if let scope = requirement.scope, unusable.contains(scope) { continue }
            if let scope = requirement.scope, !known.contains(scope) {
                issues.append(
                    .init(
                        code: .undeclaredScope,
                        message: "\(requirement.reader) runs in scope '\(scope)', which is not declared"
                            + undeclaredHint(scope, among: names),
                        location: requirement.location))
                continue
            }
            for key in requirement.keys {
                guard let slot = slots[key.name] else { continue }  // reported as unknownRequirement
                let lifetime = lifetimes[slot]
                if let scope = lifetime.scope, unusable.contains(scope) { continue }
                if let scope = lifetime.scope, !lineage.sees(scope, from: requirement.scope) {
                    issues.append(scopeMismatch(requirement, reads: key.name, of: scope))
                } else if let scope = requirement.scope, lifetime.scope != scope {
                    reads[scope, default: []].insert(key.name)
                }
            }
        }
        return (scopes, reads)
    }

    /// The scopes whose parents are valid: declared, not the scope itself or a descendant (a
    /// cycle, reported with its path), at most ``maximumScopeDepth`` deep. The others are
    /// reported and left out.
    private static func checkParents(
        of scopes: [Scope], names: [String], declaredIndex: [String: Int], rejected: Set<String>,
        issues: inout [GraphError.Issue]
    ) -> [Scope] {
        let byName = Dictionary(scopes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var valid: [Scope] = []
        for (index, scope) in scopes.enumerated() {
            guard let parent = scope.parent else {
                valid.append(scope)
                continue
            }
            let place = declaredIndex[scope.name] ?? index
            let location = (scope.location ?? ConfigLocation(keyPath: "scopes[\(place)]")).appending("parent")
            if rejected.contains(parent) { continue }
            guard byName[parent] != nil else {
                issues.append(
                    .init(
                        code: .undeclaredScope,
                        message:
                            "scope '\(scope.name)' names parent scope '\(NameRules.visible(parent))', which is not declared"
                            + undeclaredHint(parent, among: names),
                        location: location))
                continue
            }
            var chain = [scope.name]
            var next: String? = parent
            while let current = next, !chain.contains(current), chain.count <= maximumScopeDepth {
                chain.append(current)
                next = byName[current]?.parent
            }
            if let current = next, chain.contains(current) {
                issues.append(
                    .init(
                        code: .invalidScope,
                        message: "scope '\(scope.name)' is nested in itself: "
                            + (chain + [current]).joined(separator: " -> ") + "; remove one of these parents",
                        location: location))
            } else if chain.count > maximumScopeDepth {
                issues.append(
                    .init(
                        code: .invalidScope,
                        message: "scope '\(scope.name)' is nested more than \(maximumScopeDepth) deep ("
                            + chain.joined(separator: " -> ") + (next == nil ? "" : " -> ...")
                            + "); nest it in a scope nearer the top",
                        location: location))
            } else {
                valid.append(scope)
            }
        }
        // A scope whose chain holds a rejected scope is left out too (its parts could not be made).
        let kept = Set(valid.map(\.name))
        return valid.filter { scope in
            var next = scope.parent
            var depth = 0
            while let current = next, depth <= maximumScopeDepth {
                guard kept.contains(current) else { return false }
                next = byName[current]?.parent
                depth += 1
            }
            return true
        }
    }

    /// What is wrong with a scope name, if anything: scope instance labels are `scope#id`.
    static func scopeNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "is empty; give the scope a name" }
        if name.utf8.count > 64 { return "is longer than 64 bytes; shorten it" }
        if name.unicodeScalars.contains(where: {
            $0 == "#" || $0 == "/" || $0.properties.isWhitespace || $0.value < 0x20 || (0x7F...0x9F).contains($0.value)
        }) {
            return "may not contain '#', '/', spaces or control characters; use letters, digits, '-' or '_'"
        }
        return nil
    }

    private static func describe(_ name: String) -> String { "'" + NameRules.visible(name) + "'" }

    private static func undeclaredHint(_ scope: String, among names: [String]) -> String {
        if let suggestion = NameSuggestion.closest(to: scope, among: names) {
            return "; did you mean '\(suggestion)'?"
        }
        return names.isEmpty
            ? "; declare it in the graph's scopes (the config's top-level \"scopes\": [\"\(NameRules.visible(scope))\"])"
            : "; declared scopes: \(names.joined(separator: ", "))"
    }
}

/// Which scopes see which: a scope sees its own services, its ancestors' and the app's.
struct ScopeLineage {
    private let parents: [String: String]

    init(_ scopes: [ServiceGraph.Scope]) {
        var parents: [String: String] = [:]
        for scope in scopes { if let parent = scope.parent { parents[scope.name] = parent } }
        self.parents = parents
    }

    /// Whether a service of `viewer` (`nil`: the app) may read a service of `scope` (`nil`: the app).
    func sees(_ scope: String?, from viewer: String?) -> Bool {
        guard let scope else { return true }
        var next = viewer
        var depth = 0
        while let current = next, depth <= ServiceGraph.maximumScopeDepth {
            if current == scope { return true }
            next = parents[current]
            depth += 1
        }
        return false
    }

    /// ` (nested in 'account')` for a nested scope, empty otherwise.
    func nesting(of scope: String) -> String { parents[scope].map { " (nested in '\($0)')" } ?? "" }
}
