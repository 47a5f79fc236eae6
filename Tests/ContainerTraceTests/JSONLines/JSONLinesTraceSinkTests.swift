import Container
import ContainerTrace
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite("JSON Lines trace format, version 1")
struct JSONLinesTraceSinkTests {
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
        .generationReset(TraceEvent.GenerationChange(from: 1, to: 2, invalidated: ["session", "feed"])),
        .generationReset(TraceEvent.GenerationChange(from: 2, to: 3, invalidated: nil)),
        .nodeTornDown(node: "session", error: nil),
        .nodeTornDown(node: "session", error: "close failed"),
        .containerShutdown,
        .buildFailed(failure: .transient, roots: ["a"], exhausted: true),
        .generationReset(
            TraceEvent.GenerationChange(
                from: 3, to: 4, invalidated: ["b"], reason: .reload, added: ["c"], removed: ["d"], changed: ["b"])),
        .scopeOpened,
        .scopeClosed,
        .nodeStarted(node: "session", overridden: true),
        .nodeFailed(node: "telemetry", failure: .permanent, error: "no SDK key", optional: true),
        .callerJoined(caller: "launch", state: .idle, request: .eager),
        .callerJoined(caller: "later", state: .idle, request: .deferred),
        .callerJoined(caller: "push", state: .running, request: .services(["session", "pushDetail"])),
        .buildAdded(nodes: ["session", "pushDetail"], caller: "push"),
        .inputSupplied(node: "deviceToken", replaced: false),
        .inputSupplied(node: "deviceToken", replaced: true),
        .nodeStarted(node: "router", executor: .main, priority: .high),
        .nodeStarted(node: "analytics", overridden: true, executor: .pool, priority: .background),
    ]

    @Test("every event kind encodes to one documented, parseable line with its values intact")
    func everyKindRoundTrips() throws {
        let lines = Locked<[String]>([])
        let sink = JSONLinesTraceSink { line in lines.withLock { $0.append(line) } }
        for (index, kind) in Self.everyKind.enumerated() {
            // The scope events name their instance; the others are app events.
            let scope = kind.name.hasPrefix("scope.") ? "push#notification-42" : nil
            sink.record(
                TraceEvent(
                    time: .milliseconds(index * 3) + .microseconds(7), build: BuildAttempt(generation: 2, attempt: 3),
                    scope: scope, kind: kind))
        }
        let written = lines.withLock { $0 }
        #expect(written.count == Self.everyKind.count)
        #expect(written.allSatisfy { $0.hasSuffix("\n") && $0.dropLast().firstIndex(of: "\n") == nil })
        let objects = JSONLines.parse(written.joined())
        #expect(objects.count == Self.everyKind.count)
        for (object, kind) in zip(objects, Self.everyKind) {
            JSONLinesVocabulary.expectDocumented(object)
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
        #expect(objects[21]["scope"] as? String == "push#notification-42")
        #expect(objects[22]["event"] as? String == "scope.closed" && objects[22]["scope"] as? String != nil)
        #expect(objects.prefix(21).allSatisfy { $0["scope"] == nil }, "app events carry no scope")
        #expect(objects[23]["override"] as? Bool == true)
        #expect(objects[1]["override"] == nil, "override is absent unless the service was replaced")
        #expect(objects[3]["optional"] == nil, "optional is absent unless the service is optional")
        #expect(objects[24]["optional"] as? Bool == true)
        #expect(objects[11]["request"] == nil, "request is absent when the event does not know it")
        #expect(objects[25]["request"] as? String == "eager" && objects[25]["needs"] == nil)
        #expect(objects[26]["request"] as? String == "deferred" && objects[26]["needs"] == nil)
        #expect(objects[27]["request"] as? String == "services")
        #expect(objects[27]["needs"] as? [String] == ["session", "pushDetail"])
        #expect(
            objects[28]["nodes"] as? [String] == ["session", "pushDetail"] && objects[28]["caller"] as? String == "push"
        )
        #expect(objects[29]["node"] as? String == "deviceToken" && objects[29]["replaced"] as? Bool == false)
        #expect(objects[30]["replaced"] as? Bool == true)
        #expect(objects[1]["executor"] == nil && objects[1]["priority"] == nil, "absent when not known")
        #expect(objects[31]["executor"] as? String == "main" && objects[31]["priority"] as? String == "high")
        #expect(objects[32]["executor"] as? String == "pool" && objects[32]["priority"] as? String == "background")
        #expect(objects[32]["override"] as? Bool == true)
        #expect(
            Set(Self.everyKind.map(\.name)) == Set(JSONLinesVocabulary.documented.keys), "every event is documented")
    }

    @Test("keys come in the documented order, v first")
    func keyOrder() {
        let line = JSONLinesTraceSink.line(
            for: TraceEvent(
                time: .seconds(1), build: BuildAttempt(generation: 1, attempt: 1),
                kind: .nodeSucceeded(node: "a", duration: .seconds(2))))
        #expect(line == #"{"v":1,"t":1,"gen":1,"attempt":1,"event":"node.succeeded","node":"a","durationMs":2000}"#)
    }

    @Test("node.started says where the provider ran and at what priority, after override")
    func executorAndPriority() {
        let line = JSONLinesTraceSink.line(
            for: TraceEvent(
                time: .milliseconds(5), build: BuildAttempt(generation: 1, attempt: 1),
                kind: .nodeStarted(node: "theme", overridden: true, executor: .main, priority: .medium)))
        #expect(
            line == #"{"v":1,"t":0.005,"gen":1,"attempt":1,"event":"node.started","node":"theme","override":true,"#
                + #""executor":"main","priority":"medium"}"#)
    }

    @Test("a scope instance's events carry scope right after event; escaped like any string")
    func scopeField() {
        let line = JSONLinesTraceSink.line(
            for: TraceEvent(
                time: .microseconds(1_500), build: BuildAttempt(generation: 2, attempt: 1), scope: "push#\"n\"-42",
                kind: .nodeStarted(node: "pushDetail")),
            fields: [("scope", "spoofed"), ("scenario", "scopes")])
        #expect(
            line == #"{"v":1,"t":0.0015,"gen":2,"attempt":1,"event":"node.started","scope":"push#\"n\"-42","#
                + #""node":"pushDetail","scenario":"scopes"}"#)
        let opened = JSONLinesTraceSink.line(
            for: TraceEvent(
                time: .zero, build: BuildAttempt(generation: 1, attempt: 1), scope: "scene#1", kind: .scopeOpened))
        #expect(opened == #"{"v":1,"t":0,"gen":1,"attempt":1,"event":"scope.opened","scope":"scene#1"}"#)
    }

    @Test("the lines of a mixed app and scope trace are all documented; scope exactly on the instances' events")
    func mixedScopes() {
        let events = SyntheticTraces.mixedScopes
        let text = events.map { JSONLinesTraceSink.line(for: $0) + "\n" }.joined()
        let objects = JSONLines.parse(text)
        #expect(objects.count == events.count)
        for (object, event) in zip(objects, events) {
            JSONLinesVocabulary.expectDocumented(object)
            #expect(object["scope"] as? String == event.scope)
        }
        #expect(Set(objects.compactMap { $0["scope"] as? String }) == Set(SyntheticTraces.instances))
    }

    @Test("extra fields are appended and cannot shadow the format's own")
    func extraFields() {
        let line = JSONLinesTraceSink.line(
            for: TraceEvent(time: .zero, build: BuildAttempt(generation: 1, attempt: 1), kind: .buildStarted),
            fields: [("scenario", "log\"out"), ("event", "spoofed")])
        #expect(line == #"{"v":1,"t":0,"gen":1,"attempt":1,"event":"build.started","scenario":"log\"out"}"#)
    }

    @Test("no name the format writes, for any event kind, can be taken by an extra field on any event")
    func everyWrittenNameIsReserved() throws {
        let events = Self.everyKind.map { kind in
            TraceEvent(
                time: .zero, build: BuildAttempt(generation: 1, attempt: 1),
                scope: kind.name.hasPrefix("scope.") ? "push#1" : nil, kind: kind)
        }
        var written = Set<String>()
        for event in events {
            written.formUnion(try #require(JSONLines.parse(JSONLinesTraceSink.line(for: event)).first).keys)
        }
        #expect(written.isSuperset(of: ["override", "executor", "priority", "scope", "needs"]))
        for event in events {
            let line = JSONLinesTraceSink.line(for: event, fields: written.sorted().map { ($0, "spoofed-value") })
            #expect(line == JSONLinesTraceSink.line(for: event), "an extra field shadowed or joined: \(line)")
        }
    }
}

extension JSONLinesTraceSinkTests {
    @Test("every JSON Lines example in docs/trace-format.md parses and uses only the documented vocabulary")
    func documentedExamples() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let doc = try String(contentsOf: root.appendingPathComponent("docs/trace-format.md"), encoding: .utf8)
        let lines = doc.split(separator: "\n").filter { $0.hasPrefix(#"{"v":1,"#) }
        #expect(lines.count >= 30)
        let objects = JSONLines.parse(lines.joined(separator: "\n"))
        #expect(objects.count == lines.count)
        for object in objects { JSONLinesVocabulary.expectDocumented(object) }
        let events = Set(objects.compactMap { $0["event"] as? String })
        for event in ["scope.opened", "scope.closed", "generation.reset", "build.failed", "caller.joined"] {
            #expect(events.contains(event), "the doc shows \(event)")
        }
        #expect(objects.contains { $0["exhausted"] as? Bool == true && $0["event"] as? String == "build.failed" })
        #expect(objects.contains { $0["state"] as? String == "waiting" })
        #expect(objects.contains { $0["reason"] as? String == "reload" && $0["changed"] != nil })
    }
}
