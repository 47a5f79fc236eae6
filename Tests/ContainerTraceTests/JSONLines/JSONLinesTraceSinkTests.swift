import Container
import ContainerDemoKit
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite("JSON Lines trace format, version 1")
struct JSONLinesTraceSinkTests {
    /// The documented extra fields of every event (docs/trace-format.md), with their JSON types.
    static let documented: [String: [String: String]] = [
        "build.started": [:],
        "node.started": ["node": "string"],
        "node.succeeded": ["node": "string", "durationMs": "number"],
        "node.failed": ["node": "string", "failure": "string", "error": "string"],
        "node.retrying": ["node": "string", "retry": "number", "delayMs": "number"],
        "node.skipped": ["node": "string", "because": "array"],
        "node.cancelled": ["node": "string", "phase": "string"],
        "node.reused": ["node": "string"],
        "snapshot.published": ["services": "number"],
        "build.failed": ["failure": "string", "roots": "array", "exhausted": "boolean"],
        "build.cancelled": [:],
        "caller.joined": ["caller": "string", "state": "string"],
        "caller.resumed": ["caller": "string", "result": "string"],
        "caller.cancelled": ["caller": "string"],
        "generation.reset": [
            "from": "number", "to": "number", "invalidated": "array", "reason": "string", "added": "array",
            "removed": "array", "changed": "array",
        ],
        "node.tornDown": ["node": "string", "error": "string"],
        "container.shutdown": [:],
    ]
    /// Fields that may be absent.
    static let optional: Set<String> = ["invalidated", "error", "exhausted", "added", "removed", "changed"]

    static func type(of value: Any) -> String {
        switch value {
        case is String: "string"
        case let number as NSNumber where String(cString: number.objCType) == "c": "boolean"
        case is [Any]: "array"
        case is NSNumber: "number"
        default: "other"
        }
    }

    /// Checks one parsed line against the documented vocabulary.
    static func expectDocumented(_ object: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(object["v"] as? Int == 1, sourceLocation: sourceLocation)
        #expect(object["t"] is NSNumber && (object["t"] as? Double ?? -1) >= 0, sourceLocation: sourceLocation)
        #expect(object["gen"] as? Int != nil, sourceLocation: sourceLocation)
        #expect(object["attempt"] as? Int != nil, sourceLocation: sourceLocation)
        guard let event = object["event"] as? String, let fields = documented[event] else {
            Issue.record("undocumented event in \(object)", sourceLocation: sourceLocation)
            return
        }
        for (field, type) in fields {
            guard let value = object[field] else {
                #expect(optional.contains(field), "\(event) lacks \(field)", sourceLocation: sourceLocation)
                continue
            }
            #expect(Self.type(of: value) == type, "\(event).\(field) is not a \(type)", sourceLocation: sourceLocation)
        }
        let known = Set(fields.keys).union(["v", "t", "gen", "attempt", "event", "scenario"])
        #expect(
            Set(object.keys).isSubset(of: known), "\(event) has undocumented fields", sourceLocation: sourceLocation)
    }

    /// One event of every kind, with names that need escaping.
    static let everyKind: [TraceEvent.Kind] = [
        .buildStarted,
        .nodeStarted(node: "db \"main\""),
        .nodeSucceeded(node: "db \"main\"", duration: .microseconds(4_250)),
        .nodeFailed(node: "back\\slash", failure: .transient, error: "line one\nline two\ttab \u{1}"),
        .nodeRetrying(node: "back\\slash", retry: 1, delay: .milliseconds(50)),
        .nodeSkipped(node: "ünïcödé ✓", because: ["back\\slash", "x"]),
        .nodeCancelled(node: "a-b c", phase: .whileRunning),
        .nodeReused(node: "a-b c"),
        .snapshotPublished(services: 5),
        .buildFailed(failure: .permanent, roots: ["back\\slash"], exhausted: false),
        .buildCancelled,
        .callerJoined(caller: "launch", state: .running),
        .callerResumed(caller: "launch", result: .superseded),
        .callerCancelled(caller: "push"),
        .generationReset(GenerationChange(from: 1, to: 2, invalidated: ["session", "feed"])),
        .generationReset(GenerationChange(from: 2, to: 3, invalidated: nil)),
        .nodeTornDown(node: "session", error: nil),
        .nodeTornDown(node: "session", error: "close failed"),
        .containerShutdown,
        .buildFailed(failure: .transient, roots: ["a"], exhausted: true),
        .generationReset(
            GenerationChange(
                from: 3, to: 4, invalidated: ["b"], reason: .reload, added: ["c"], removed: ["d"], changed: ["b"])),
    ]

    @Test("every event kind encodes to one documented, parseable line with its values intact")
    func everyKindRoundTrips() throws {
        let lines = Locked<[String]>([])
        let sink = JSONLinesTraceSink { line in lines.withLock { $0.append(line) } }
        for (index, kind) in Self.everyKind.enumerated() {
            sink.record(
                TraceEvent(time: .milliseconds(index * 3) + .microseconds(7), generation: 2, attempt: 3, kind: kind))
        }
        let written = lines.withLock { $0 }
        #expect(written.count == Self.everyKind.count)
        #expect(written.allSatisfy { $0.hasSuffix("\n") && $0.dropLast().firstIndex(of: "\n") == nil })
        let objects = JSONLines.parse(written.joined())
        #expect(objects.count == Self.everyKind.count)
        for (object, kind) in zip(objects, Self.everyKind) {
            Self.expectDocumented(object)
            #expect(object["event"] as? String == kind.name)
            #expect(object["gen"] as? Int == 2)
            #expect(object["attempt"] as? Int == 3)
            if let node = kind.node { #expect(object["node"] as? String == node) }
        }
        #expect(objects[2]["durationMs"] as? Double == 4.25)
        #expect(objects[3]["error"] as? String == "line one\nline two\ttab \u{1}")
        #expect(objects[5]["because"] as? [String] == ["back\\slash", "x"])
        #expect(objects[14]["invalidated"] as? [String] == ["session", "feed"])
        #expect(objects[15]["invalidated"] == nil, "invalidated is absent when every service is invalidated")
        #expect(objects[16]["error"] == nil)
        #expect(objects[17]["error"] as? String == "close failed")
        #expect(objects[1]["t"] as? Double == 0.003007)
        #expect(objects[9]["exhausted"] == nil, "exhausted is absent unless the budget was used up")
        #expect(objects[19]["exhausted"] as? Bool == true)
        #expect(objects[14]["reason"] as? String == "reset")
        #expect(objects[20]["reason"] as? String == "reload")
        #expect(objects[20]["added"] as? [String] == ["c"])
        #expect(objects[20]["removed"] as? [String] == ["d"])
        #expect(objects[20]["changed"] as? [String] == ["b"])
    }

    @Test("keys come in the documented order, v first")
    func keyOrder() {
        let line = JSONLinesTraceSink.line(
            for: TraceEvent(
                time: .seconds(1), generation: 1, attempt: 1, kind: .nodeSucceeded(node: "a", duration: .seconds(2))))
        #expect(line == #"{"v":1,"t":1,"gen":1,"attempt":1,"event":"node.succeeded","node":"a","durationMs":2000}"#)
    }

    @Test("extra fields are appended and cannot shadow the format's own")
    func extraFields() {
        let line = JSONLinesTraceSink.line(
            for: TraceEvent(time: .zero, generation: 1, attempt: 1, kind: .buildStarted),
            fields: [("scenario", "log\"out"), ("event", "spoofed")])
        #expect(line == #"{"v":1,"t":0,"gen":1,"attempt":1,"event":"build.started","scenario":"log\"out"}"#)
    }

    @Test("a real run: every line parses and has the documented fields for its event")
    func realRun() async {
        for scenario in [DemoScenario.transient, .permanent, .logout, .cancel] {
            let capture = CapturedOutput()
            let status = await runDemo(DemoOptions(trace: .jsonl, scenario: scenario), output: capture.output())
            #expect(status == 0, "\(scenario): \(capture.standardError)")
            let objects = JSONLines.parse(capture.standardOutput)
            #expect(!objects.isEmpty)
            for object in objects { Self.expectDocumented(object) }
            let times = objects.compactMap { $0["t"] as? Double }
            #expect(times == times.sorted(), "t never decreases in \(scenario)")
            // Commentary goes to standard error, keeping standard output pure JSON Lines.
            #expect(capture.standardError.contains("Story"))
        }
    }
}
