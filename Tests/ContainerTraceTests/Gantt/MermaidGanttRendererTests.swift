import Container
import ContainerTrace
import Foundation
import Testing

@Suite("Mermaid gantt renderer", .timeLimit(.minutes(1)))
struct MermaidGanttRendererTests {
    @Test("Mermaid gantt: one bar per node that ran, from start to end in milliseconds")
    func gantt() async throws {
        let (_, report, _) = try await AwkwardGraph.build()
        let text = MermaidGanttRenderer(title: "t: 1").render([report])
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.prefix(3) == ["gantt", "title t#58; 1", "dateFormat x"])
        let ran = report.nodes.filter { $0.startedAt != nil && $0.endedAt != nil }
        let bars = lines.filter { !$0.hasPrefix("%%") && $0.contains(" :") && !$0.hasPrefix("title") }
        #expect(bars.count == ran.count)
        for bar in bars {
            // name :tags, id, start, end: the name holds no colon, start <= end.
            let parts = bar.split(separator: ":", maxSplits: 1)
            #expect(parts.count == 2)
            let fields = parts[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let start = Int(fields[fields.count - 2])
            let end = Int(fields[fields.count - 1])
            #expect(start != nil && end != nil && start! <= end!, "\(bar)")
        }
        #expect(lines.contains { $0.hasPrefix("with space :crit,") })
        let skipped = report.nodes.filter { if case .skipped = $0.outcome { true } else { false } }
        #expect(lines.filter { $0.hasPrefix("%%") }.count == skipped.count)
    }
}

extension MermaidGanttRendererTests {
    @Test("scope instances: a section each after the app's, a bar per node run, labelled by build when several")
    func scopes() throws {
        let text = MermaidGanttRenderer().render([], trace: SyntheticTraces.mixedScopes)
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let sections = lines.filter { $0.hasPrefix("section ") }
        #expect(
            sections == [
                "section scene#35;window-1, published", "section scene#35;window-2, failed then published",
                "section push#35;notification-42, published",
            ])
        let bars = lines.filter { $0.contains(" :") && !$0.hasPrefix("title") }
        #expect(bars.count == 5)
        #expect(bars.contains { $0.hasPrefix("sceneRouter #40;g1 a1#41; :crit, ") })
        #expect(bars.contains { $0.hasPrefix("sceneRouter #40;g1 a2#41; :done, ") })
        #expect(bars.contains { $0.hasPrefix("pushDetail :done, ") })
        let ids = bars.compactMap { $0.split(separator: ",").dropFirst().first?.trimmingCharacters(in: .whitespaces) }
        #expect(Set(ids).count == bars.count, "task ids are unique")
    }
}
