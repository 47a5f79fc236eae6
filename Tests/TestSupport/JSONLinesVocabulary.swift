import Foundation
public import Testing

/// The JSON Lines trace format, version 1, as `docs/trace-format.md` documents it: checks a
/// parsed line against the documented events, fields and types.
public enum JSONLinesVocabulary {
    /// The documented fields of every event (besides those on every line), with their JSON types.
    public static let documented: [String: [String: String]] = [
        "build.started": [:],
        "node.started": [
            "node": "string", "override": "boolean", "executor": "string", "priority": "string",
        ],
        "node.succeeded": ["node": "string", "durationMs": "number"],
        "node.failed": ["node": "string", "failure": "string", "error": "string", "optional": "boolean"],
        "node.retrying": ["node": "string", "retry": "number", "delayMs": "number"],
        "node.skipped": ["node": "string", "because": "array"],
        "node.cancelled": ["node": "string", "phase": "string"],
        "node.reused": ["node": "string"],
        "snapshot.published": ["services": "number"],
        "build.failed": ["failure": "string", "roots": "array", "exhausted": "boolean"],
        "build.cancelled": [:],
        "build.added": ["nodes": "array", "caller": "string"],
        "input.supplied": ["node": "string", "replaced": "boolean"],
        "caller.joined": ["caller": "string", "state": "string", "request": "string", "needs": "array"],
        "caller.resumed": ["caller": "string", "result": "string"],
        "caller.cancelled": ["caller": "string"],
        "generation.reset": [
            "from": "number", "to": "number", "invalidated": "array", "reason": "string", "added": "array",
            "removed": "array", "changed": "array",
        ],
        "node.tornDown": ["node": "string", "error": "string"],
        "container.shutdown": [:],
        "scope.opened": [:],
        "scope.closed": [:],
    ]
    /// Fields that may be absent.
    public static let optional: Set<String> = [
        "invalidated", "error", "exhausted", "added", "removed", "changed", "override", "optional", "request",
        "needs", "executor", "priority",
    ]
    /// The documented values of the string fields that have a fixed set.
    public static let values: [String: Set<String>] = [
        "failure": ["transient", "permanent"], "phase": ["beforeStart", "whileRunning"],
        "state": ["idle", "running", "ready", "failed", "waiting", "shutDown"],
        "result": ["snapshot", "failure", "superseded"], "reason": ["reset", "reload"],
        "request": ["eager", "deferred", "services"], "executor": ["main", "pool"],
        "priority": ["high", "medium", "low", "background"],
    ]

    /// Checks one parsed line against the documented vocabulary: `v`, `t`, `gen`, `attempt`,
    /// `event`, an optional string `scope` (required on `scope.*` events), the event's fields and
    /// nothing else but the extra field `scenario`.
    public static func expectDocumented(_ object: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(object["v"] as? Int == 1, sourceLocation: sourceLocation)
        #expect(object["t"] is NSNumber && (object["t"] as? Double ?? -1) >= 0, sourceLocation: sourceLocation)
        #expect(object["gen"] as? Int != nil, sourceLocation: sourceLocation)
        #expect(object["attempt"] as? Int != nil, sourceLocation: sourceLocation)
        guard let event = object["event"] as? String, let fields = documented[event] else {
            Issue.record("undocumented event in \(object)", sourceLocation: sourceLocation)
            return
        }
        if let scope = object["scope"] {
            #expect(scope is String, "scope is not a string", sourceLocation: sourceLocation)
        } else {
            #expect(!event.hasPrefix("scope."), "\(event) lacks its scope", sourceLocation: sourceLocation)
        }
        for (field, type) in fields {
            guard let value = object[field] else {
                #expect(optional.contains(field), "\(event) lacks \(field)", sourceLocation: sourceLocation)
                continue
            }
            #expect(
                JSONLines.type(of: value) == type, "\(event).\(field) is not a \(type)", sourceLocation: sourceLocation)
            if let allowed = values[field], let text = value as? String {
                #expect(allowed.contains(text), "\(event).\(field) = \(text)", sourceLocation: sourceLocation)
            }
        }
        if event == "build.failed", let exhausted = object["exhausted"] {
            #expect(exhausted as? Bool == true, "exhausted is only ever true", sourceLocation: sourceLocation)
        }
        if event == "node.failed", let optional = object["optional"] {
            #expect(optional as? Bool == true, "optional is only ever true", sourceLocation: sourceLocation)
        }
        if event == "caller.joined" {
            #expect(
                (object["needs"] != nil) == (object["request"] as? String == "services"),
                "needs comes with a request for services only", sourceLocation: sourceLocation)
        }
        if event == "node.started", let override = object["override"] {
            #expect(override as? Bool == true, "override is only ever true", sourceLocation: sourceLocation)
        }
        if event == "node.started", object["priority"] != nil {
            #expect(object["executor"] != nil, "priority comes with executor", sourceLocation: sourceLocation)
        }
        if event == "generation.reset", object["reason"] as? String != "reload" {
            #expect(
                object["added"] == nil && object["removed"] == nil && object["changed"] == nil,
                "added, removed and changed come with a reload only", sourceLocation: sourceLocation)
        }
        let known = Set(fields.keys).union(["v", "t", "gen", "attempt", "event", "scope", "scenario"])
        #expect(
            Set(object.keys).isSubset(of: known), "\(event) has undocumented fields", sourceLocation: sourceLocation)
    }
}
