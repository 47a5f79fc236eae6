import Container
import Testing

/// A graph over service names that break naive DOT or Mermaid output, and a failed build of it.
enum AwkwardGraph {
    /// Names that break naive DOT or Mermaid output.
    static let names = [
        "plain", "with space", "dash-ed", "quo\"te", "back\\slash", "ünï©ødé ✓", "colon: semi; hash #1",
        "brackets [x] {y} (z) <w>", "pipe | amp &", "percent %% comment",
    ]

    /// A chain-and-fan graph over the awkward names; the second node fails permanently so
    /// the report has succeeded, failed and skipped nodes.
    static func build() async throws -> (ServiceGraph, BuildReport, [(String, String)]) {
        var specs: [ServiceSpec] = []
        var edges: [(String, String)] = []
        for (index, name) in names.enumerated() {
            let dependencies = index == 0 ? [] : index == 1 ? [names[0]] : [names[(index - 1) / 2]]
            edges += dependencies.map { ($0, name) }
            let fails = index == 1
            specs.append(
                ServiceSpec(ServiceKey<Int>(name), dependsOn: dependencies) { _ in
                    if fails { throw Failure() }
                    return index
                })
        }
        let container = try ServiceContainer(specs)
        do {
            _ = try await container.start()
            Issue.record("the build should fail")
            throw Failure()
        } catch let error as ContainerError {
            let report = try #require(error.report)
            return (container.graph, report, edges)
        }
    }

    struct Failure: ClassifiedError {
        var failureKind: FailureKind { .permanent }
    }
}
