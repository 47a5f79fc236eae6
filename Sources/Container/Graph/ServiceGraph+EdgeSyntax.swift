extension ServiceGraph {
    /// Why a service called `name` could not be depended on, as `dependsOn` reads `"name?"` (an
    /// optional edge) and `"group:name"` (a group); `nil` when it can.
    static func edgeSyntaxProblem(service name: String) -> String? {
        if name.hasSuffix("?") {
            return "service name '\(NameRules.visible(name))' ends with '?', which dependsOn reads as an optional "
                + "edge to '\(NameRules.visible(String(name.dropLast())))'; rename the service"
        }
        if name.hasPrefix(ServiceGroups.prefix) {
            return "service name '\(NameRules.visible(name))' starts with '\(ServiceGroups.prefix)', which dependsOn "
                + "reads as a group; rename the service"
        }
        return nil
    }

    /// Why a group called `name` could not be depended on: `"group:name?"` reads as an optional
    /// dependency on the group without the `?`; `nil` when it can.
    static func edgeSyntaxProblem(group name: String) -> String? {
        guard name.hasSuffix("?") else { return nil }
        return
            "group name '\(NameRules.visible(name))' ends with '?', which \"group:\(NameRules.visible(name))\" would "
            + "read as an optional dependency on group '\(NameRules.visible(String(name.dropLast())))'; rename the group"
    }
}
