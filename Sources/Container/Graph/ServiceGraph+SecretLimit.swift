extension ServiceGraph {
    /// The most bytes of secret text (the values of options marked secret, ``ServiceOptions/secretStrings``)
    /// a graph may hold: the redactor keeps an automaton of them, some tens of bytes per byte.
    public static let maximumSecretBytes = 1 << 20

    /// The issue of `specs` whose secret options hold more than ``maximumSecretBytes`` in all,
    /// placed at the service where the total passes it; `nil` within the limit.
    package static func secretLimitIssue(_ specs: [ServiceSpec]) -> GraphError.Issue? {
        var total = 0
        var passedAt: ServiceSpec?
        for spec in specs where !spec.options.secretKeys.isEmpty {
            total += spec.options.secretStrings.reduce(0) { $0 + $1.utf8.count }
            if passedAt == nil && total > maximumSecretBytes { passedAt = spec }
        }
        guard let spec = passedAt else { return nil }
        return .init(
            code: .invalidOptions,
            message: "the options marked secret hold \(total) bytes of text, over the limit of "
                + "\(maximumSecretBytes) (1 MiB, ServiceGraph.maximumSecretBytes), passed at service "
                + "'\(spec.name)'; keep large secret data (a long SQL script, a key file) in a file the "
                + "provider reads, and mark its path secret",
            service: spec.name, location: spec.location?.appending("secretOptions"))
    }
}
