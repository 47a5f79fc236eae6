import Container
import ContainerTesting
import ContainerTrace
import Foundation
import TestSupport
import Testing

/// The graph renderers draw each scope instance of a trace as its own group (the TraceFormat article).
@Suite("Graph renderers: scope instances", .timeLimit(.minutes(1)))
struct ScopedGraphRendererTests {
    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The lines between `opening` and the `closing` line after it.
    static func block(_ lines: [String], from opening: (String) -> Bool, to closing: String) -> [String] {
        guard let start = lines.firstIndex(where: opening) else { return [] }
        let end = lines[start...].firstIndex(of: closing) ?? lines.endIndex
        return Array(lines[(start + 1)..<end])
    }

    @Test("an app-only trace draws exactly what the report alone draws")
    func appOnlyUnchanged() async throws {
        let (graph, report, _) = try await AwkwardGraph.build()
        let events = SyntheticTraces.retriesCancellationResets
        #expect(
            DOTRenderer().render(graph, report: report, trace: events) == DOTRenderer().render(graph, report: report))
        #expect(
            MermaidFlowchartRenderer().render(graph, report: report, trace: events)
                == MermaidFlowchartRenderer().render(graph, report: report))
    }

    @Test("DOT: one cluster per scope instance with its nodes and outcomes; edges from the app into it")
    func dotClusters() throws {
        let graph = try SyntheticTraces.graphWithScopedServices()
        let dot = DOTRenderer().render(graph, report: nil, trace: SyntheticTraces.mixedScopes)
        let lines = Self.lines(dot)
        #expect(dot.filter { $0 == "{" }.count == dot.filter { $0 == "}" }.count)
        #expect(lines.filter { $0.hasPrefix("subgraph cluster_") }.count == 3)
        for (index, label) in SyntheticTraces.instances.enumerated() {
            let cluster = Self.block(lines, from: { $0 == "subgraph cluster_\(index) {" }, to: "}")
            #expect(cluster.first == "label=\"\(label)\";")
            let nodes = cluster.filter { $0.contains("[label=") }
            #expect(nodes.count == (label.hasPrefix("push") ? 2 : 1), "\(label): \(cluster)")
            #expect(nodes.allSatisfy { $0.hasPrefix("\"\(label)/") })
        }
        // Scoped services are drawn in their instances only, not as unbuilt app services.
        #expect(!lines.contains { $0.hasPrefix("\"sceneRouter\"") || $0.hasPrefix("\"pushDetail\"") })
        #expect(lines.contains("\"session\" -> \"scene#window-1/sceneRouter\";"))
        #expect(lines.contains("\"session\" -> \"scene#window-2/sceneRouter\";"))
        #expect(lines.contains("\"database\" -> \"push#notification-42/pushDetail\";"))
        #expect(lines.contains("\"push#notification-42/pushPayload\" -> \"push#notification-42/pushDetail\";"))
        // Outcomes come from each instance's latest build: window-2 failed, then succeeded.
        let window2 = try #require(lines.first { $0.hasPrefix("\"scene#window-2/sceneRouter\"") })
        #expect(window2.contains("succeeded · 0.09ms") && window2.contains("#c8e6c9"))
    }

    @Test("DOT: instance node ids never collide with app services, whatever their names")
    func dotIDsAreUnique() throws {
        let graph = try ServiceGraph([ServiceSpec(ServiceKey<Int>("scene#1/router")) { _ in 1 }])
        var script = TraceScript()
        script.add([.buildStarted, .nodeStarted(node: "router")], scope: "scene#1")
        script.add(.nodeFailed(node: "router", failure: .permanent, error: "x"), scope: "scene#1")
        let lines = Self.lines(DOTRenderer().render(graph, report: nil, trace: script.events))
        #expect(lines.contains { $0.hasPrefix("\"scene#1/router\" [label=\"scene#1/router\"") })
        #expect(lines.contains { $0.hasPrefix("\"scene#1/router'\" [label=\"router\\nfailed (permanent)") })
    }

    @Test("Mermaid flowchart: one subgraph per scope instance, generated ids, classes by outcome")
    func flowchartSubgraphs() throws {
        let graph = try SyntheticTraces.graphWithScopedServices()
        let text = MermaidFlowchartRenderer().render(graph, report: nil, trace: SyntheticTraces.mixedScopes)
        let lines = Self.lines(text)
        #expect(lines.filter { $0.hasPrefix("subgraph ") }.count == 3)
        #expect(lines.filter { $0 == "end" }.count == 3)
        #expect(lines.contains("subgraph s0[\"scene#35;window-1\"]"))
        #expect(lines.contains("subgraph s2[\"push#35;notification-42\"]"))
        let push = Self.block(lines, from: { $0.hasPrefix("subgraph s2[") }, to: "end")
        #expect(push.count == 2 && push[0].hasPrefix("s2n0[\"pushPayload<br/>succeeded"))
        // App ids: configuration n0 ... feed n3; the scoped services of the graph are not app nodes.
        #expect(!lines.contains { $0.hasPrefix("n4[") })
        #expect(lines.contains("n2 --> s0n0") && lines.contains("n2 --> s1n0"))
        #expect(lines.contains("n1 --> s2n1") && lines.contains("s2n0 --> s2n1"))
        let succeeded = lines.first { $0.hasPrefix("class ") && $0.hasSuffix(" succeeded") } ?? ""
        #expect(succeeded.contains("s0n0") && succeeded.contains("s1n0") && succeeded.contains("s2n1"))
    }

    @Test("a graph that does not know the scoped services still draws them, without edges")
    func unknownScopedServices() throws {
        let graph = try SyntheticTraces.appGraph()
        let lines = Self.lines(DOTRenderer().render(graph, report: nil, trace: SyntheticTraces.mixedScopes))
        #expect(lines.contains { $0.hasPrefix("\"scene#window-1/sceneRouter\" [label=") })
        #expect(!lines.contains { $0.contains("-> \"scene#window-1/sceneRouter\"") })
        #expect(lines.contains { $0.hasPrefix("\"feed\" [label=") }, "every app service is still drawn")
    }

    @Test("nested instances are drawn inside their parents' groups, with edges from every level of their chain")
    func nestedInstances() async throws {
        let graph = try ServiceGraph(
            [
                ServiceSpec(ServiceKey<Int>("session")) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("store"), dependsOn: ["session"], lifetime: .scope("account")) { _ in 2 },
                ServiceSpec(ServiceKey<Int>("router"), dependsOn: ["store", "session"], lifetime: .scope("scene")) {
                    _ in 3
                },
            ], scopes: ["account", .init("scene", parent: "account")])
        let watcher = TraceWatcher()
        let container = ServiceContainer(graph: graph, trace: [watcher])
        let account = try container.openScope("account", id: "ada")
        _ = try await account.openScope("scene", id: "w1").start()
        let events = watcher.events
        #expect(events.contains { $0.scope == "account#ada/scene#w1" && $0.kind.name == "node.succeeded" })

        let dot = Self.lines(DOTRenderer().render(graph, report: nil, trace: events))
        let account0 = try #require(dot.firstIndex(of: "subgraph cluster_0 {"))
        let scene1 = try #require(dot.firstIndex(of: "subgraph cluster_1 {"))
        let closing = dot[scene1...].firstIndex(of: "}") ?? dot.endIndex
        #expect(dot[account0 + 1] == "label=\"account#ada\";" && dot[scene1 + 1] == "label=\"account#ada/scene#w1\";")
        #expect(
            account0 < scene1 && dot[(closing + 1)...].first == "}", "the scene's cluster closes inside the account's")
        #expect(dot.contains("\"account#ada/store\" -> \"account#ada/scene#w1/router\";"))
        #expect(dot.contains("\"session\" -> \"account#ada/scene#w1/router\";"))
        #expect(dot.contains("\"session\" -> \"account#ada/store\";"))

        let mermaid = Self.lines(MermaidFlowchartRenderer().render(graph, report: nil, trace: events))
        let outer = try #require(mermaid.firstIndex { $0.hasPrefix("subgraph s0[") })
        let inner = try #require(mermaid.firstIndex { $0.hasPrefix("subgraph s1[") })
        let innerEnd = try #require(mermaid[inner...].firstIndex(of: "end"))
        #expect(outer < inner && mermaid[innerEnd + 1] == "end", "s1 ends inside s0")
        #expect(mermaid.contains("s0n0 --> s1n0") && mermaid.contains("n0 --> s1n0"))
    }
}
