extension ServiceGraph {
    /// The scope checks of validation (see <doc:Scopes>): declared names, every service's scope, every
    /// edge between lifetimes, and the scopes of readers. Returns the valid declared names and,
    /// per scope, the app services its readers require (they join the scope's part).
    static func checkScopes(
        declared: [String], specs: [ServiceSpec], accepted: [Int], dependencies: [[Int]],
        requirements: [ServiceGraph.Requirement], slots: [String: Int], issues: inout [GraphError.Issue]
    ) -> (names: [String], reads: [String: Set<String>]) {
        var names: [String] = []
        for (index, name) in declared.enumerated() {
            if let problem = scopeNameProblem(name) {
                issues.append(
                    .init(
                        code: .invalidScope, message: "scope name \(describe(name)) \(problem)",
                        location: ConfigLocation(keyPath: "scopes[\(index)]")))
            } else if names.contains(name) {
                issues.append(
                    .init(
                        code: .invalidScope, message: "scope '\(name)' is declared twice; remove one",
                        location: ConfigLocation(keyPath: "scopes[\(index)]")))
            } else {
                names.append(name)
            }
        }
        let lifetimes = accepted.map { specs[$0].lifetime }
        for (slot, position) in accepted.enumerated() {
            let spec = specs[position]
            if let scope = spec.lifetime.scope, !names.contains(scope) {
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
                guard from != to, to != .app else { continue }
                let target = specs[accepted[dependency]]
                let place = target.location.map { " (declared at \($0))" } ?? ""
                let location = spec.location?.appending("dependsOn").appending("[\(index)]")
                if from == .app {
                    issues.append(
                        .init(
                            code: .captiveDependency,
                            message: "app service '\(spec.name)' depends on '\(target.name)' of \(to)"
                                + "\(place), which it would outlive; make '\(spec.name)' live in "
                                + "\(to) too, or remove the dependency",
                            service: spec.name, location: location))
                } else {
                    issues.append(
                        .init(
                            code: .crossScopeDependency,
                            message: "service '\(spec.name)' of \(from) depends on '\(target.name)' "
                                + "of \(to)\(place); scopes never see each other's services: depend "
                                + "on an app service instead, or move one of them",
                            service: spec.name, location: location))
                }
            }
        }
        var reads: [String: Set<String>] = [:]
        for requirement in requirements {
            if let scope = requirement.scope, !names.contains(scope) {
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
                if let scope = lifetime.scope, scope != requirement.scope {
                    let runsIn = requirement.scope.map { "runs in scope '\($0)'" } ?? "does not run in a scope"
                    issues.append(
                        .init(
                            code: .scopeMismatch,
                            message: "\(requirement.reader) requires '\(key.name)' of scope '\(scope)' but \(runsIn); "
                                + "declare the entry point's scope as '\(scope)' or require an app service",
                            service: key.name, location: requirement.location))
                } else if let scope = requirement.scope, lifetime == .app {
                    reads[scope, default: []].insert(key.name)
                }
            }
        }
        return (names, reads)
    }

    /// What is wrong with a scope name, if anything: scope instance labels are `scope#id`.
    static func scopeNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "is empty; give the scope a name" }
        if name.utf8.count > 64 { return "is longer than 64 bytes; shorten it" }
        if name.unicodeScalars.contains(where: {
            $0 == "#" || $0.properties.isWhitespace || $0.value < 0x20 || (0x7F...0x9F).contains($0.value)
        }) {
            return "may not contain '#', spaces or control characters; use letters, digits, '-' or '_'"
        }
        return nil
    }

    private static func describe(_ name: String) -> String {
        "'" + String(name.unicodeScalars.map { $0.value < 0x20 ? "?" : Character($0) }) + "'"
    }

    private static func undeclaredHint(_ scope: String, among names: [String]) -> String {
        if let suggestion = NameSuggestion.closest(to: scope, among: names) {
            return "; did you mean '\(suggestion)'?"
        }
        return names.isEmpty
            ? "; declare it in the graph's scopes (the config's top-level \"scopes\": [\"\(scope)\"])"
            : "; declared scopes: \(names.joined(separator: ", "))"
    }
}
