import TestSupport
import Testing

@testable import Container

private struct Settings: Sendable, Equatable { let path: String }
private struct Clock: Sendable { let now: Int }
private struct Store: Sendable {
    let path: String
    let now: Int
}

extension ServiceKey where Value == Settings { fileprivate static let settings = ServiceKey("settings") }
extension ServiceKey where Value == Clock { fileprivate static let clock = ServiceKey("clock") }
extension ServiceKey where Value == Store { fileprivate static let store = ServiceKey("store") }

private protocol Sink: Sendable { var name: String { get } }
private struct NamedSink: Sink { let name: String }
extension ServiceGroup where Value == any Sink { fileprivate static let sinks = ServiceGroup("sinks") }

@Suite("Plugin API: typed edges, provider requirements, groups, @Needs (Typed dependencies)")
struct PluginAPITests {
    @Test("The string and typed forms of dependsOn build the same graph")
    func typedAndStringFormsAgree() async throws {
        let typed = try ServiceGraph([
            ServiceSpec(.settings) { _ in Settings(path: "db") },
            ServiceSpec(.clock) { _ in Clock(now: 7) },
            ServiceSpec(.store, dependsOn: .settings, .clock) { context in
                Store(path: try context[.settings].path, now: try context[.clock].now)
            },
        ])
        let strings = try ServiceGraph([
            ServiceSpec(.settings) { _ in Settings(path: "db") },
            ServiceSpec(.clock) { _ in Clock(now: 7) },
            ServiceSpec(.store, dependsOn: ["settings", "clock"]) { context in
                Store(path: try context[.settings].path, now: try context[.clock].now)
            },
        ])
        #expect(typed.dependencies(of: "store") == strings.dependencies(of: "store"))
        #expect(typed.changes(from: strings).isEmpty)
        let store = try await ServiceContainer(graph: typed).start()[.store]
        #expect(store.path == "db" && store.now == 7)
    }

    @Test("A typed edge of the wrong type and an undeclared read are rejected at validation, with locations")
    func typedEdgeErrors() throws {
        struct Reader: ServiceProvider {
            let id = "reader"
            var requirements: [AnyServiceKey] { [ServiceKey.settings.erased, ServiceKey.clock.erased] }
            func make(_ context: ProviderContext) async throws -> Int { 1 }
        }
        let wrongType = ServiceKey<Int>("settings")
        let error = #expect(throws: GraphError.self) {
            try ServiceGraph([
                ServiceSpec(.settings) { _ in Settings(path: "db") },
                ServiceSpec(.clock) { _ in Clock(now: 1) },
                ServiceSpec(ServiceKey<Int>("count"), dependsOn: wrongType, fileID: "App/Graph.swift", line: 42) { _ in
                    1
                },
                ServiceSpec(
                    name: "reader", provider: Reader(), dependsOn: ["settings"],
                    location: ConfigLocation(file: "app.json", keyPath: "services[3]", line: 7, column: 5)),
            ])
        }
        let issues = error?.issues ?? []
        #expect(issues.count == 2)
        let mismatch = issues.first { $0.code == .typeMismatch }
        #expect(
            mismatch?.message.contains("depends on 'settings' as Int, but its provider 'closure' makes Settings")
                == true)
        #expect(mismatch?.service == "count")
        #expect(mismatch?.location == ConfigLocation(file: "App/Graph.swift", keyPath: "dependsOn", line: 42))
        let undeclared = issues.first { $0.code == .missingDependency }
        #expect(undeclared?.message.contains("reads 'clock' but does not depend on it") == true)
        #expect(undeclared?.message.contains("add \"clock\" to its dependsOn") == true)
        #expect(undeclared?.service == "reader")
        #expect(
            undeclared?.location
                == ConfigLocation(file: "app.json", keyPath: "services[3].dependsOn", line: 7, column: 5))
    }

    @Test("A provider's requirement of the wrong type is a typeMismatch naming both types, at its location")
    func requirementOfTheWrongType() throws {
        struct Reader: ServiceProvider {
            let id = "reader"
            // `settings` is made as Settings; this provider says it reads it as a String.
            var requirements: [AnyServiceKey] { [ServiceKey<String>("settings").erased] }
            func make(_ context: ProviderContext) async throws -> Int { 1 }
        }
        let error = #expect(throws: GraphError.self) {
            try ServiceGraph([
                ServiceSpec(.settings) { _ in Settings(path: "db") },
                ServiceSpec(
                    name: "reader", provider: Reader(), dependsOn: ["settings"],
                    location: ConfigLocation(file: "app.json", keyPath: "services[1]")),
            ])
        }
        let issues = error?.issues ?? []
        #expect(issues.map(\.code) == [.typeMismatch])
        let mismatch = issues.first
        #expect(
            mismatch?.message.contains(
                "service 'reader' (provider 'reader') reads 'settings' as String, but its provider 'closure' makes "
                    + "Settings") == true)
        #expect(mismatch?.service == "reader")
        #expect(mismatch?.location == ConfigLocation(file: "app.json", keyPath: "services[1].dependsOn"))
        // The same provider reading it as the right type is accepted.
        struct RightReader: ServiceProvider {
            let id = "reader"
            var requirements: [AnyServiceKey] { [ServiceKey.settings.erased] }
            func make(_ context: ProviderContext) async throws -> Int { 1 }
        }
        _ = try ServiceGraph([
            ServiceSpec(.settings) { _ in Settings(path: "db") },
            ServiceSpec(name: "reader", provider: RightReader(), dependsOn: ["settings"]),
        ])
    }

    @Test("Reading an undeclared dependency from a provider names what to declare")
    func undeclaredReadAtRunTime() async throws {
        let container = try ServiceContainer([
            ServiceSpec(.settings) { _ in Settings(path: "db") },
            ServiceSpec(.clock) { context in Clock(now: try context[.settings].path.count) },
        ])
        let error = await #expect(throws: ContainerError.self) { try await container.start() }
        guard case .failed(let failure)? = error?.report?.outcome(of: "clock") else { return fail("clock failed") }
        #expect(failure.message.contains("read 'settings' without declaring it"))
        #expect(failure.message.contains(#"in code: dependsOn: ["settings"]"#))
    }

    @Test("Groups: members in declaration order; one failing member skips the group's dependents")
    func groups() async throws {
        let fails = Locked(false)
        func sink(_ name: String) -> ServiceSpec {
            ServiceSpec(ServiceKey<any Sink>(name), group: "sinks") { _ in
                if name == "b", fails.withLock({ $0 }) { throw Classified(failureKind: .transient) }
                return NamedSink(name: name)
            }
        }
        let graph = try ServiceGraph([
            sink("c"), sink("a"),
            ServiceSpec(ServiceKey<[String]>("tracker"), dependsOn: [ServiceGroup.sinks.dependency]) { context in
                try context.group(.sinks).map(\.name)
            },
            sink("b"),
        ])
        let container = ServiceContainer(graph: graph)
        #expect(try await container.start()[ServiceKey<[String]>("tracker")] == ["c", "a", "b"])

        fails.withLock { $0 = true }
        try await container.reset()
        let error = await #expect(throws: ContainerError.self) { try await container.start() }
        #expect(error?.report?.outcome(of: "tracker") == .skipped(because: ["b"]))
    }

    @Test("Groups: members of another type, an empty group, and an unknown group are rejected")
    func groupErrors() throws {
        let mixed = #expect(throws: GraphError.self) {
            try ServiceGraph([
                ServiceSpec(ServiceKey<Int>("x"), group: "g") { _ in 1 },
                ServiceSpec(ServiceKey<String>("y"), group: "g") { _ in "" },
            ])
        }
        #expect(mixed?.issues.first?.message.contains("members of group 'g' make different types") == true)
        let empty = #expect(throws: GraphError.self) {
            try ServiceGraph([
                ServiceSpec(ServiceKey<Int>("x"), group: "sinks") { _ in 1 },
                ServiceSpec(ServiceKey<Int>("y"), dependsOn: ["group:sink"]) { _ in 1 },
            ])
        }
        #expect(empty?.issues.first?.message.contains("has no members; did you mean 'sinks'?") == true)
        // Allowed when optional: the dependent gets an empty list.
        _ = try ServiceGraph([ServiceSpec(ServiceKey<Int>("y"), dependsOn: ["group:sinks?"]) { _ in 1 }])
        // A member depending on its own group would depend on itself.
        let own = #expect(throws: GraphError.self) {
            try ServiceGraph([
                ServiceSpec(ServiceKey<Int>("x"), group: "sinks") { _ in 1 },
                ServiceSpec(ServiceKey<Int>("y"), dependsOn: ["group:sinks?"], group: "sinks") { _ in 2 },
            ])
        }
        #expect(own?.issues.map(\.code) == [.cycle])
        #expect(own?.issues.first?.message.contains("depends on group 'sinks', which it belongs to") == true)
    }

    @Test("Groups: each dependent of a large group lists every member once, also one it names itself")
    func largeGroups() throws {
        let members = (0..<300).map { index in ServiceSpec(ServiceKey<Int>("m\(index)"), group: "g") { _ in index } }
        let dependents = (0..<300).map { index in
            ServiceSpec(ServiceKey<Int>("d\(index)"), dependsOn: ["m0", "group:g"]) { _ in index }
        }
        let graph = try ServiceGraph(members + dependents)
        #expect(graph.dependencies(of: "d7")?.count == 300, "m0 listed once, by name and through the group")
        #expect(graph.dependencies(of: "d7")?.prefix(2) == ["m0", "m1"])
    }

    fileprivate struct Greeter: EntryPoint {
        let id = "greeter"
        @Needs(.settings) var settings: Settings
        @Needs(.clock) var clock: Clock
        func run(_ services: ScopedServices) async throws -> String { "\(settings.path) at \(clock.now)" }
    }

    @Test("@Needs: the requirements are derived from the wrappers and filled while run(_:) runs")
    func needs() async throws {
        #expect(Greeter().requirements == [ServiceKey.settings.erased, ServiceKey.clock.erased])
        let container = try ServiceContainer(
            [ServiceSpec(.settings) { _ in Settings(path: "db") }, ServiceSpec(.clock) { _ in Clock(now: 3) }])
        #expect(try await container.run(Greeter()) == "db at 3")
        // Validation checks the derived requirements like any other.
        #expect(throws: GraphError.self) {
            try ServiceGraph([ServiceSpec(.settings) { _ in Settings(path: "db") }], requirements: [.init(Greeter())])
        }
    }

    @Test("@Needs: reading a wrapper that was not filled is a clear error")
    func needsOutsideRun() {
        let greeter = Greeter()
        let error = #expect(throws: AppServices.LookupError.self) { try greeter.$settings.get() }
        #expect(error?.message.contains("read outside an entry point's run(_:)") == true)
    }
}
