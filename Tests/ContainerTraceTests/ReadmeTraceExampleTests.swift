import Container
import ContainerTrace
import Foundation
import TestSupport
import Testing

/// The README's trace example ("How it behaves"), compiled and run as it is printed there.
@Suite("README trace example")
struct ReadmeTraceExampleTests {
    @Test("a recorder and a JSON Lines sink; the timeline and the Chrome trace of the run")
    func example() async throws {
        let graph = try ServiceGraph([
            ServiceSpec(ServiceKey<Int>("settings")) { _ in 1 },
            ServiceSpec(ServiceKey<Int>("database"), dependsOn: ["settings"]) { _ in 2 },
        ])

        let recorder = TraceRecorder()
        let container = ServiceContainer(
            graph: graph, trace: [recorder, JSONLinesTraceSink { print($0, terminator: "") }])
        _ = try await container.start()
        print(TimelineRenderer().render(recorder.events))
        let chromeTrace = PerfettoRenderer().render(recorder.events)  // open in ui.perfetto.dev

        let chrome = try #require(ChromeTraceChecks.parse(chromeTrace))
        ChromeTraceChecks.expectWellFormed(chrome)
        ChromeTraceChecks.expectMatches(chrome, events: recorder.events)
    }

    @Test("the README shows the example as this test runs it")
    func readmeShowsIt() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        for line in [
            "let recorder = TraceRecorder()",
            "let container = ServiceContainer(graph: graph, trace: [recorder, JSONLinesTraceSink { print($0, terminator: \"\") }])",
            "print(TimelineRenderer().render(recorder.events))",
            "let chromeTrace = PerfettoRenderer().render(recorder.events)   // open in ui.perfetto.dev",
        ] {
            #expect(readme.contains(line), "README lacks: \(line)")
        }
    }
}
