import ContainerTesting
import Synchronization
import Testing

@testable import Container

extension ServiceKey where Value == String {
    fileprivate static let settings = ServiceKey("settings")
    fileprivate static let delegate = ServiceKey("delegate")
}

/// Found by an outside API review: a fixed value replacing a synchronous service made it
/// asynchronous, so a `sync` service reading it failed validation and `resolveNow` threw.
@Suite("Overrides of synchronous services stay synchronous")
struct SynchronousOverrideTests {
    private static let specs: [ServiceSpec] = [
        .synchronous(.settings) { _ in "production" },
        .synchronous(.delegate, dependsOn: ["settings"], sync: true) { context in "delegate(\(try context[.settings]))"
        },
    ]

    @Test("a fixed value keeps a sync service valid, and resolveNow reads through it")
    func value() throws {
        let container = try ServiceContainer(graph: ServiceGraph(Self.specs), overrides: [.value(.settings, "test")])
        #expect(try container.resolveNow(.delegate) == "delegate(test)")
        #expect(try container.resolveNow(.settings) == "test")
    }

    @Test("a synchronous closure replaces one, called once per generation")
    func synchronousClosure() throws {
        let calls = Atomic<Int>(0)
        let container = try ServiceContainer(
            graph: ServiceGraph(Self.specs),
            overrides: [
                .synchronous(.settings) { _ in
                    calls.add(1, ordering: .relaxed)
                    return "staging"
                }
            ])
        #expect(try container.resolveNow(.delegate) == "delegate(staging)")
        #expect(try container.resolveNow(.delegate) == "delegate(staging)")
        #expect(calls.load(ordering: .relaxed) == 1)
    }

    @Test("an asynchronous replacement of a service a sync one reads is a validation error naming the override")
    func asynchronousReplacement() throws {
        let error = #expect(throws: GraphError.self) {
            try ServiceContainer(graph: ServiceGraph(Self.specs), overrides: [.make(.settings) { _ in "async" }])
        }
        #expect(error?.issues.contains { $0.code == .notSynchronous } == true)
        #expect(error?.description.contains("replace it with .value or .synchronous") == true)
    }
}
