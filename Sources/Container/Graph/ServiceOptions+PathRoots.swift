extension ServiceOptions {
    /// The path roots the option values name (`"$data/..."` names `data`), sorted: what a
    /// service's paths depend on, of everything in ``pathRoots``.
    func namedPathRoots() -> [String] {
        var names = Set<String>()
        func visit(_ value: Value) {
            switch value {
            case .string(let text) where text.hasPrefix("$"):
                let name = Self.rootName(of: text)
                if !name.isEmpty { names.insert(String(name)) }
            case .array(let items): items.forEach(visit)
            case .object(let fields): fields.values.forEach(visit)
            default: break
            }
        }
        values.values.forEach(visit)
        return names.sorted()
    }

    /// The root a `$root/rest` path names (`root`; empty for `$/x`).
    private static func rootName(of raw: String) -> Substring {
        raw.dropFirst().prefix { $0 != "/" }
    }

    /// Resolves `$root` or `$root/rest` against ``pathRoots``.
    ///
    /// A config file ships read-only inside an app bundle, so its own folder is the wrong place
    /// for a database: the app names its writable folders instead (`"data"` for Application
    /// Support) and the config says `"$data/app.sqlite"`.
    func resolveRooted(_ raw: String, option: String) throws(OptionError) -> String {
        let name = String(Self.rootName(of: raw))
        let rest = raw.dropFirst(1 + name.count).drop { $0 == "/" }
        guard !name.isEmpty else {
            throw .invalid(
                option,
                "'\(raw)' starts with '$' but names no path root; write '$name/...' with a root the app supplies "
                    + "(e.g. '$data/app.sqlite'), or './\(raw)' for a file whose name starts with '$'")
        }
        guard let root = pathRoots[name] else {
            throw .invalid(option, Self.unknownRootMessage(name, in: raw, known: pathRoots.keys))
        }
        if rest.isEmpty { return root }
        return root.hasSuffix("/") ? root + rest : root + "/" + rest
    }

    private static func unknownRootMessage(
        _ name: String, in raw: String, known: Dictionary<String, String>.Keys
    ) -> String {
        let name = NameRules.visible(name)
        let raw = NameRules.visible(raw)
        guard !known.isEmpty else {
            return "'\(raw)' starts at the path root '$\(name)', but the app supplies no path roots; pass "
                + "pathRoots: [\"\(name)\": folder] when loading the config, or write a path relative to the "
                + "config file"
        }
        let hint = NameSuggestion.closest(to: name, among: known).map { "; did you mean '$\($0)'?" } ?? ""
        let supplied = known.sorted().map { "$" + $0 }.joined(separator: ", ")
        return "unknown path root '$\(name)' in '\(raw)'\(hint) (path roots the app supplies: \(supplied))"
    }
}
