internal import Container

// Applying an overlay's `services` to the declarations (Configs/README.md, "Overlays"): a
// service object names a declared service and replaces the keys it gives; `"add": true`
// declares a new one; `"remove": true` removes one.
extension ConfigDecoder {
    /// Applies one overlay's `services` list. `false` when the list is over its limit.
    mutating func applyOverlay(_ field: Field) -> Bool {
        guard field.node.isArray else {
            report(
                .wrongType, "must be a list of services to change, add or remove, found \(field.node.typeName)",
                at: field.path, in: field.document, field.node.position)
            return true
        }
        let items = field.node.elements
        guard checkServiceCount(items.count, of: field) else { return false }
        // "Did you mean" among the names declared so far, prepared on the first unknown one.
        var suggestions: NameSuggestion.Index?
        for (index, item) in items.enumerated() {
            let object = field.child(item, key: "[\(index)]")
            guard let fields = members(of: object, expected: "an object", allowed: ConfigSchema.overlayServiceKeys),
                let name = name(of: object, fields)
            else { continue }
            let add = fields["add"].flatMap { bool($0) } ?? false
            let remove = fields["remove"].flatMap { bool($0) } ?? false
            if add && remove, let removeField = fields["remove"] {
                report(
                    .invalidValue,
                    "service '\(NameRules.visible(name))' cannot be both added and removed; keep \"add\": true to declare it, or "
                        + "\"remove\": true to remove it",
                    at: removeField.path, in: removeField.document, removeField.node.position)
                continue
            }
            let existing = declarationIndex[name]
            if add {
                declareAdded(name, object: object, fields: fields, existing: existing)
                continue
            }
            guard let existing else {
                reportUnknown(name, object: object, fields: fields, removing: remove, suggestions: &suggestions)
                continue
            }
            if remove {
                removeDeclared(name, at: existing, object: object, fields: fields)
            } else {
                patch(existing, with: fields)
            }
        }
        return true
    }

    /// `"add": true`: a new service, declared by the overlay's object.
    private mutating func declareAdded(_ name: String, object: Field, fields: Fields, existing: Int?) {
        if let existing, let declared = declarations[existing], let add = fields["add"] {
            report(
                .invalidValue,
                "service '\(NameRules.visible(name))' is already declared (\(place(of: declared.origin))); drop \"add\": true to change "
                    + "it, or choose another name for a new service",
                at: add.path, in: add.document, add.node.position)
            return
        }
        var serviceFields = Fields(allowed: ConfigSchema.serviceKeys, values: [])
        serviceFields.values = ConfigSchema.serviceKeys.map { fields[$0] }
        declarationIndex[name] = declarations.count
        declarations.append(ServiceDeclaration(name: name, origin: object, fields: serviceFields))
    }

    /// `"remove": true`: the service leaves the graph. Nothing else may be said of it.
    private mutating func removeDeclared(_ name: String, at index: Int, object: Field, fields: Fields) {
        var clean = true
        for key in ConfigSchema.serviceKeys where key != "name" && key != "description" {
            guard let field = fields[key] else { continue }
            clean = false
            report(
                .invalidValue,
                "service '\(NameRules.visible(name))' is removed, so '\(key)' has no effect; drop \"\(key)\", or drop \"remove\": true "
                    + "to change the service",
                at: field.path, in: field.document, field.node.position)
        }
        guard clean else { return }
        declarations[index] = nil
        declarationIndex[name] = nil
        removals[name] = fields["remove"] ?? object
    }

    /// A change: each key the overlay gives replaces the declared one; `null` resets it.
    private mutating func patch(_ index: Int, with fields: Fields) {
        guard var declaration = declarations[index] else { return }
        for key in ConfigSchema.serviceKeys where key != "name" && key != "description" {
            guard let field = fields[key] else { continue }
            if field.node.isNull && !ConfigSchema.resettableServiceKeys.contains(key) {
                report(
                    .wrongType,
                    "'\(key)' cannot be reset with null: every service needs one; give a \(key) id, or remove the "
                        + "service with \"remove\": true",
                    at: field.path, in: field.document, field.node.position)
                continue
            }
            declaration.fields[key] = field
        }
        declarations[index] = declaration
    }

    private mutating func reportUnknown(
        _ name: String, object: Field, fields: Fields, removing: Bool, suggestions: inout NameSuggestion.Index?
    ) {
        if suggestions == nil {
            suggestions = NameSuggestion.Index(declarations.compactMap { $0?.name })
        }
        let visible = NameRules.visible(name)
        var message =
            removing
            ? "removes service '\(visible)', which the config does not declare"
            : "changes service '\(visible)', which the config does not declare"
        let suggestion = suggestions?.closest(to: name)
        if let suggestion { message += "; did you mean '\(suggestion)'?" }
        if let removal = removals[name] {
            message += " (an earlier overlay removes it at \(place(of: removal)))"
        } else if !removing {
            let advice = "to declare a new service, add \"add\": true"
            message += suggestion == nil ? "; " + advice : " (" + advice + ")"
        }
        let nameField = fields["name"] ?? object
        report(.unknownService, message, at: nameField.path, in: nameField.document, nameField.node.position)
    }

    /// `file line L` of a field, for a message that points elsewhere.
    func place(of field: Field) -> String {
        "\(documents[field.document].file):\(field.node.position.line):\(field.node.position.column)"
    }
}
