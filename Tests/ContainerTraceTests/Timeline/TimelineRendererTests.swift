import Container
import ContainerTesting
import ContainerTrace
import Foundation
import Testing

@Suite("Timeline renderer")
struct TimelineRendererTests {
    static let g1a1 = BuildAttempt(generation: 1, attempt: 1)
    static let events: [TraceEvent] = [
        TraceEvent(
            time: .microseconds(100), build: g1a1, kind: .callerJoined(caller: "launch", state: .idle)),
        TraceEvent(
            time: .microseconds(150), build: g1a1, kind: .callerJoined(caller: "push", state: .running)),
        TraceEvent(time: .microseconds(200), build: g1a1, kind: .buildStarted),
        TraceEvent(time: .microseconds(300), build: g1a1, kind: .nodeStarted(node: "configuration")),
        TraceEvent(
            time: .microseconds(2_300), build: g1a1,
            kind: .nodeSucceeded(node: "configuration", duration: .microseconds(2_000))),
        TraceEvent(time: .microseconds(2_400), build: g1a1, kind: .nodeStarted(node: "db")),
        TraceEvent(
            time: .microseconds(12_400), build: g1a1,
            kind: .nodeFailed(node: "db", failure: .transient, error: "busy")),
        TraceEvent(
            time: .microseconds(12_500), build: g1a1,
            kind: .buildFailed(failure: .transient, roots: ["db"], exhausted: false)),
        TraceEvent(
            time: .microseconds(12_600), build: g1a1,
            kind: .callerResumed(caller: "launch", result: .failure)),
        TraceEvent(
            time: .microseconds(12_700), build: g1a1,
            kind: .callerResumed(caller: "push", result: .failure)),
    ]

    @Test("one aligned line per event; no escape codes without colours")
    func plainLines() {
        let text = TimelineRenderer(colored: false).renderEvents(Self.events)
        let lines = text.split(separator: "\n")
        #expect(lines.count == Self.events.count)
        #expect(!text.contains("\u{1B}"))
        // The verbs start in the same column on every line.
        let columns = lines.compactMap { line in
            ["joined", "started", "succeeded", "failed", "resumed"].compactMap { verb in
                line.range(of: "  " + verb).map { line.distance(from: line.startIndex, to: $0.lowerBound) }
            }.min()
        }
        #expect(columns.count == lines.count)
        #expect(Set(columns).count == 1, "\(text)")
        #expect(lines[0].contains("0.100ms") && lines[0].contains("found idle"))
        #expect(lines[6].contains("transient: busy"))
    }

    @Test("the summary says who shared the build and each node's start, end, duration and outcome")
    func summary() {
        let text = TimelineRenderer().renderSummary(Self.events)
        #expect(
            text.contains("generation 1, attempt 1: one build, failed (transient) after 12.3ms, shared by 2 callers"))
        #expect(text.contains("started the build (found idle): launch"))
        #expect(text.contains("joined it (found running): push"))
        let configuration = text.split(separator: "\n").first { $0.contains("configuration") }
        #expect(configuration?.contains("0.300ms") == true)
        #expect(configuration?.contains("2.300ms") == true)
        #expect(configuration?.contains("2.000ms") == true)
        #expect(configuration?.hasSuffix("succeeded") == true)
        #expect(text.contains("failed (transient): busy"))
    }

    @Test("colours are ANSI escape codes, added only when asked")
    func colours() {
        let text = TimelineRenderer(colored: true).render(Self.events)
        #expect(text.contains("\u{1B}[31mfailed"))
        #expect(text.contains("\u{1B}[32msucceeded"))
    }

    @Test("an app-only trace has no scope column; a trace with scopes labels every line and block")
    func scopes() {
        let plain = TimelineRenderer().renderEvents(Self.events)
        #expect(!plain.contains(" app "))
        let events = SyntheticTraces.mixedScopes
        let text = TimelineRenderer().renderEvents(events)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == events.count)
        for (line, event) in zip(lines, events) {
            let label = event.scope ?? "app"
            #expect(line.contains("g\(event.generation) a\(event.attempt)  \(label) "), "\(line)")
        }
        // The column is as wide as the longest label: the subjects still line up.
        let subjects = lines.map { line in
            line.range(of: "  caller ") ?? line.range(of: "  node ") ?? line.range(of: "  scope ")
        }
        let columns = Set(
            zip(lines, subjects).compactMap { line, range in
                range.map { line.distance(from: line.startIndex, to: $0.lowerBound) }
            })
        #expect(columns.count == 1, "\(text)")
        #expect(lines.contains { $0.contains("scene#window-1") && $0.hasSuffix("opened") })
        #expect(lines.contains { $0.contains("scene#window-1") && $0.hasSuffix("closed") })
        let summary = TimelineRenderer().renderSummary(events)
        #expect(summary.contains("generation 1, attempt 1: one build, published 4 services"))
        #expect(summary.contains("scope scene#window-2, generation 1, attempt 1: one build, failed (transient)"))
        #expect(summary.contains("scope scene#window-2, generation 1, attempt 2: one build, published 1 services"))
        #expect(
            summary.contains("scope push#notification-42, generation 1, attempt 1: one build, published 2 services"))
        // Each block lists only its own nodes.
        let pushBlock = summary.components(separatedBy: "\n\n").first { $0.hasPrefix("scope push#") } ?? ""
        #expect(
            pushBlock.contains("pushDetail") && !pushBlock.contains("sceneRouter") && !pushBlock.contains("database"))
    }

    @Test("retries, a reload and a cancelled build read as sentences")
    func retriesCancellationResets() {
        let text = TimelineRenderer().render(SyntheticTraces.retriesCancellationResets)
        #expect(text.contains("retry 1 after 2ms"))
        #expect(text.contains("generation 1 → 2, added feed; changed session; rebuilding session, feed"))
        #expect(text.contains("generation 2, attempt 1: one build, cancelled"))
        #expect(text.contains("cancelled while waiting: push"))
        #expect(text.contains("torn down in order: feed, session (teardown failed)"))
    }

    @Test("a service replaced by an override says so where it starts, and nowhere else")
    func overrideStart() async throws {
        let recorder = TraceRecorder()
        let graph = try ServiceGraph([
            ServiceSpec(ServiceKey<String>("database")) { _ in "disk" },
            ServiceSpec(ServiceKey<String>("session"), dependsOn: ["database"]) { _ in "ada" },
        ])
        let container = try ServiceContainer(
            graph: graph, overrides: [.value(ServiceKey<String>("database"), "memory")], trace: [recorder])
        _ = try await withTimeout { try await container.start() }
        let lines = TimelineRenderer(colored: false).renderEvents(recorder.events).split(separator: "\n")
        let starts = lines.filter { $0.contains("started") && $0.contains("node") }
        #expect(starts.count == 2)
        #expect(starts.first { $0.contains("database") }?.hasSuffix(" by an override") == true, "\(lines)")
        #expect(starts.first { $0.contains("session") }?.hasSuffix("started") == true, "\(lines)")
        #expect(lines.filter { $0.contains("override") }.count == 1)
    }

    @Test("main-actor nodes are marked where they start, and the summary adds up the main actor's time")
    func mainActorNodes() {
        let events: [TraceEvent] = [
            TraceEvent(time: .microseconds(100), build: Self.g1a1, kind: .buildStarted),
            TraceEvent(
                time: .microseconds(200), build: Self.g1a1,
                kind: .nodeStarted(node: "theme", executor: .main, priority: .high)),
            TraceEvent(
                time: .microseconds(300), build: Self.g1a1,
                kind: .nodeStarted(node: "database", executor: .pool, priority: .high)),
            TraceEvent(
                time: .microseconds(3_200), build: Self.g1a1,
                kind: .nodeSucceeded(node: "theme", duration: .microseconds(3_000))),
            TraceEvent(
                time: .microseconds(3_300), build: Self.g1a1,
                kind: .nodeStarted(node: "router", overridden: true, executor: .main, priority: .high)),
            TraceEvent(
                time: .microseconds(5_300), build: Self.g1a1,
                kind: .nodeSucceeded(node: "router", duration: .microseconds(2_000))),
            TraceEvent(
                time: .microseconds(9_300), build: Self.g1a1,
                kind: .nodeSucceeded(node: "database", duration: .microseconds(9_000))),
            TraceEvent(time: .microseconds(9_400), build: Self.g1a1, kind: .snapshotPublished(services: 3)),
        ]
        let renderer = TimelineRenderer(colored: false)
        let lines = renderer.renderEvents(events).split(separator: "\n")
        #expect(lines[1].hasSuffix("started    on the main actor"), "\(lines)")
        #expect(lines[2].hasSuffix("started"), "\(lines)")
        #expect(lines[4].hasSuffix("by an override, on the main actor"), "\(lines)")
        let summary = renderer.renderSummary(events)
        #expect(summary.contains("  on the main actor, one after another: theme, router (5ms in all)"), "\(summary)")
        #expect(!renderer.renderSummary(Self.events).contains("main actor"))
    }
}
