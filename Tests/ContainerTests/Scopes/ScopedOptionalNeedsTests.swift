import ContainerTesting
import TestSupport
import Testing

@testable import Container

private let telemetry = ServiceKey<Made>("telemetry")

/// An optional service whose every run fails transiently (absent from every snapshot).
private func absentTelemetry() -> ServiceSpec {
    var spec = ServiceSpec.fake(telemetry, FakeProvider<Made>.failing(.transient))
    spec.isOptional = true
    return spec
}

/// A `push` entry point that reads the scoped `detail` and, optionally, the app's `telemetry`,
/// with `$telemetry.get()` (the throwing form): a regression fails the test instead of stopping
/// the test process, as the property itself would.
private struct PushWithTelemetry: EntryPoint {
    let id = "pushWithTelemetry"
    var scope: String? { "push" }
    @Needs(ServiceKey<String>("detail")) var detail: String
    @Needs(ServiceKey<Made>("telemetry")) var telemetry: Made?
    func run(_ services: ScopedServices) async throws -> String {
        "\(detail) \(try $telemetry.get()?.name ?? "none")"
    }
}

/// A window (`scene`, nested in `account`) entry point that reads its account's `accountStore`.
private struct WindowReadsAccount: EntryPoint {
    let id = "window"
    var scope: String? { "scene" }
    @Needs(ServiceKey<String>("accountStore")) var store: String
    func run(_ services: ScopedServices) async throws -> String { try $store.get() }
}

@Suite("Scoped entry points read what their scope's services do not use", .timeLimit(.minutes(1)))
struct ScopedOptionalNeedsTests {
    /// A scoped entry point run on a graph that does not list it among its requirements reads
    /// the app services its scope's part lacks from the app snapshot: an absent optional one
    /// is `nil` there (it was `notFound`, and the property stopped the program).
    @Test("a scoped entry point's optional @Needs of an absent app optional service reads nil")
    func scopedEntryPointOptionalNeedsOfAbsentAppService() async throws {
        let graph = try ServiceGraph(
            [absentTelemetry(), ServiceSpec(ServiceKey<String>("detail"), lifetime: .scope("push")) { _ in "d" }],
            scopes: ["push"])
        let container = ServiceContainer(graph: graph)
        let shown = try await withTimeout(.seconds(30), "run(_:scopeID:)") {
            try await container.run(PushWithTelemetry(), scopeID: "notification-42")
        }
        #expect(shown == "d none")
    }

    /// The same through `ScopedServices.optional(_:)` on an open instance's `run(_:)`.
    @Test("ScopedServices.optional of an absent app optional service in a scope instance is nil")
    func scopedServicesOptionalOfAbsentAppService() async throws {
        struct Reader: EntryPoint {
            let id = "reader"
            var scope: String? { "push" }
            var requirements: [AnyServiceKey] { [ServiceKey<String>("detail").erased, telemetry.erased] }
            func run(_ services: ScopedServices) async throws -> String {
                (try services.optional(telemetry))?.name ?? "none"
            }
        }
        let graph = try ServiceGraph(
            [absentTelemetry(), ServiceSpec(ServiceKey<String>("detail"), lifetime: .scope("push")) { _ in "d" }],
            scopes: ["push"])
        let container = ServiceContainer(graph: graph)
        let push = try container.openScope("push", id: "n1")
        let shown = try await withTimeout(.seconds(30), "run") { try await push.run(Reader()) }
        #expect(shown == "none")
        _ = try await container.shutdown()
    }

    /// Scopes: "An entry point of a nested scope may require any service of its chain", also
    /// one the scope's own services do not read: it is read from the parent instance.
    @Test("a nested scope's entry point reads a parent-scope service its own services do not use")
    func nestedEntryPointReadsParentScopeService() async throws {
        let graph = try ServiceGraph(
            [
                ServiceSpec(ServiceKey<String>("apiClient")) { _ in "api" },
                ServiceSpec(ServiceKey<String>("accountStore"), dependsOn: ["apiClient"], lifetime: .scope("account")) {
                    _ in "store"
                },
                ServiceSpec(ServiceKey<String>("windowRouter"), lifetime: .scope("scene")) { _ in "router" },
            ], scopes: ["account", .init("scene", parent: "account")])
        let container = ServiceContainer(graph: graph)
        let ada = try container.openScope("account", id: "ada")
        let window = try ada.openScope("scene", id: "window-1")
        let shown = try await withTimeout(.seconds(30), "run") { try await window.run(WindowReadsAccount()) }
        #expect(shown == "store")
        let store = try #require(ada.current).contains("accountStore")
        #expect(store, "the account instance built it for its window")
        _ = try await container.shutdown()
    }
}
