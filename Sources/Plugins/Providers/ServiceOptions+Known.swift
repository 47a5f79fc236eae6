package import Container

extension ServiceOptions {
    /// Throws when the options hold a key `provider` does not read: a typo such as
    /// `"busyTimeoutMS"` must not silently give the default. `known` lists what the provider
    /// reads (a `description` note among them); options marked secret are free-form and never
    /// refused. One error names every unknown key, the first with a suggestion among `known`.
    package func refuseUnknownKeys(_ known: [String], provider: String) throws(OptionError) {
        let unknown = values.keys.sorted().filter { !known.contains($0) && !secretKeys.contains($0) }
        guard let first = unknown.first else { return }
        let hint = NameSuggestion.closest(to: first, among: known).map { "; did you mean '\($0)'?" } ?? ""
        let others = unknown.dropFirst().map { "'\(NameRules.visible($0))'" }
        let also = others.isEmpty ? "" : "; so \(others.count == 1 ? "is" : "are") \(others.joined(separator: ", "))"
        throw .invalid(
            first,
            "unknown option\(hint)\(also) (\(provider) reads \(known.joined(separator: ", ")), "
                + "and the options listed in secretOptions)")
    }
}
