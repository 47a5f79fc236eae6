import Container
import ContainerTrace
import Foundation
import Testing

@Suite("Graph renderers", .timeLimit(.minutes(1)))
struct GraphRendererTests {
    @Test("DOT: every node and edge, quoted and escaped; balanced braces; outcome colours")
    func dot() async throws {
        let (graph, report, edges) = try await AwkwardGraph.build()
        let dot = DOTRenderer(title: "a \"title\"").render(graph, report: report)
        #expect(dot.hasPrefix("digraph \"a \\\"title\\\"\" {"))
        #expect(dot.filter { $0 == "{" }.count == dot.filter { $0 == "}" }.count)
        func quoted(_ name: String) -> String {
            "\"" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        let lines = dot.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        for name in AwkwardGraph.names {
            #expect(lines.contains { $0.hasPrefix(quoted(name) + " [label=") }, "node \(name)")
        }
        for (from, to) in edges {
            #expect(lines.contains { $0.hasPrefix("\(quoted(from)) -> \(quoted(to))") }, "edge \(from) -> \(to)")
        }
        #expect(lines.filter { $0.contains(" -> ") }.count == edges.count)
        // Outcomes: the root succeeded, the second node failed, its dependents were skipped.
        #expect(lines.contains { $0.hasPrefix(quoted("plain")) && $0.contains("succeeded") && $0.contains("#c8e6c9") })
        #expect(lines.contains { $0.hasPrefix(quoted("with space")) && $0.contains("failed (permanent)") })
        #expect(lines.contains { $0.hasPrefix(quoted("back\\slash")) && $0.contains("skipped") })
        // Inside a quoted DOT string, no quote is left unescaped.
        for line in lines where line.contains("[label=") {
            var escaped = false
            var quotes = 0
            for character in line {
                if character == "\"" && !escaped { quotes += 1 }
                escaped = character == "\\" && !escaped
            }
            #expect(quotes % 2 == 0, "unbalanced quotes in \(line)")
        }
    }

    @Test("DOT and Mermaid: a lazy, deferred or optional service the build did not make says why")
    func unbuiltServicesSayWhy() async throws {
        var telemetry = ServiceSpec(ServiceKey<Int>("telemetry"), start: .lazy) { _ in 1 }
        telemetry.isOptional = true
        let container = try ServiceContainer([
            ServiceSpec(ServiceKey<Int>("settings")) { _ in 0 }, telemetry,
            ServiceSpec(ServiceKey<Int>("index"), start: .deferred) { _ in 2 },
        ])
        let report = try await container.start().report
        let graph = container.graph
        // The report lists what the build built or reused: not what it never needed.
        #expect(report.nodes.map(\.name) == ["settings"])
        #expect(report.node("telemetry") == nil && report.node("index") == nil)
        for text in [
            DOTRenderer().render(graph, report: report), MermaidFlowchartRenderer().render(graph, report: report),
        ] {
            // Mermaid escapes the parentheses as #40; and #41;.
            let plain = text.replacingOccurrences(of: "#40;", with: "(").replacingOccurrences(of: "#41;", with: ")")
            #expect(plain.contains("not built (lazy, optional)"), "\(text)")
            #expect(plain.contains("not built (deferred)"), "\(text)")
            #expect(text.contains("succeeded"))
        }
    }

    @Test("Mermaid flowchart: generated ids, escaped labels, every node and edge, classes by outcome")
    func mermaidFlowchart() async throws {
        let (graph, report, edges) = try await AwkwardGraph.build()
        let text = MermaidFlowchartRenderer().render(graph, report: report)
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.first == "flowchart LR")
        let ids = Dictionary(uniqueKeysWithValues: AwkwardGraph.names.enumerated().map { ($1, "n\($0)") })
        for name in AwkwardGraph.names {
            let id = ids[name]!
            let node = lines.first { $0.hasPrefix(id + "[\"") }
            #expect(node != nil, "node \(name)")
            if let node {
                // Entity codes (`#34;`) are Mermaid's escapes; what is left must be harmless.
                let label = String(node.dropFirst(id.count + 2).dropLast(2))
                    .replacingOccurrences(of: "#[0-9]+;", with: "", options: .regularExpression)
                #expect(node.hasSuffix("\"]"))
                // Nothing in a label can end it or start a Mermaid construct.
                for forbidden in ["\"", "[", "]", "(", ")", "{", "}", "|", ";", "%"] {
                    #expect(!label.contains(forbidden), "\(forbidden) in the label of \(name): \(label)")
                }
            }
        }
        for (from, to) in edges {
            #expect(lines.contains("\(ids[from]!) --> \(ids[to]!)"), "edge \(from) -> \(to)")
        }
        #expect(lines.filter { $0.contains(" --> ") }.count == edges.count)
        func members(_ style: String) -> Set<String> {
            guard let line = lines.first(where: { $0.hasPrefix("class ") && $0.hasSuffix(" \(style)") }) else {
                return []
            }
            return Set(line.dropFirst("class ".count).dropLast(style.count + 1).split(separator: ",").map(String.init))
        }
        #expect(members("succeeded").contains("n0"))
        #expect(members("failed") == ["n1"])
        #expect(members("skipped").contains("n3"))
        #expect(members("succeeded").union(members("failed")).union(members("skipped")) == Set(ids.values))
        #expect(text.contains("quo#34;te"))
        #expect(text.contains("colon#58; semi#59; hash #35;1"))
    }
}
