import Container
import Foundation
import TestSupport
import Testing

@Suite("Timeline renderer")
struct TimelineRendererTests {
    static let events: [TraceEvent] = [
        TraceEvent(
            time: .microseconds(100), generation: 1, attempt: 1, kind: .callerJoined(caller: "launch", state: .idle)),
        TraceEvent(
            time: .microseconds(150), generation: 1, attempt: 1, kind: .callerJoined(caller: "push", state: .running)),
        TraceEvent(time: .microseconds(200), generation: 1, attempt: 1, kind: .buildStarted),
        TraceEvent(time: .microseconds(300), generation: 1, attempt: 1, kind: .nodeStarted(node: "configuration")),
        TraceEvent(
            time: .microseconds(2_300), generation: 1, attempt: 1,
            kind: .nodeSucceeded(node: "configuration", duration: .microseconds(2_000))),
        TraceEvent(time: .microseconds(2_400), generation: 1, attempt: 1, kind: .nodeStarted(node: "db")),
        TraceEvent(
            time: .microseconds(12_400), generation: 1, attempt: 1,
            kind: .nodeFailed(node: "db", failure: .transient, error: "busy")),
        TraceEvent(
            time: .microseconds(12_500), generation: 1, attempt: 1,
            kind: .buildFailed(failure: .transient, roots: ["db"], exhausted: false)),
        TraceEvent(
            time: .microseconds(12_600), generation: 1, attempt: 1,
            kind: .callerResumed(caller: "launch", result: .failure)),
        TraceEvent(
            time: .microseconds(12_700), generation: 1, attempt: 1,
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
}
