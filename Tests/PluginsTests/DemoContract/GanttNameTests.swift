import ContainerDemoKit
import Foundation
import TestSupport
import Testing

@Suite("Demo contract: Mermaid gantt rendering of arbitrary names", .timeLimit(.minutes(1)))
struct DemoContractGanttNameTests {
    /// DESIGN.md §6: "renderers of the graph with outcomes (Graphviz DOT, Mermaid)"; docs/trace-format.md:
    /// "Service and caller names are arbitrary strings" and `--trace gantt` renders "the build timeline as a
    /// Mermaid gantt chart". A task line whose text starts with the keyword `section` is read by Mermaid as
    /// a section header, so the node's bar disappears (and its `:done, t1, ...` data is misparsed).
    @Test("a service named 'section x' is rendered as a gantt task, not as a section header")
    func taskNamedLikeAKeywordStaysATask() async throws {
        let config = """
            {"version":1,"services":[
             {"name":"a","provider":"simulated","options":{"durationMs":1}},
             {"name":"section x","provider":"simulated","dependsOn":["a"]}
            ]}
            """
        let run = try await DemoContractRun.run(config: config, ["--trace", "gantt", "--callers", "1"])
        #expect(run.status == 0, "\(run.err)")
        let lines = run.out.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let taskLinesReadAsSections = lines.filter { $0.hasPrefix("section ") && $0.contains(":done") }
        #expect(taskLinesReadAsSections.isEmpty, "a task line Mermaid reads as a section: \(run.out)")
    }
}
