import ContainerTesting
import Synchronization
import Testing

@testable import Container

/// The container a provider asks, set once the container exists.
private final class ContainerBox: Sendable {
    let container = Mutex<ServiceContainer?>(nil)
    var value: ServiceContainer { container.withLock { $0! } }
}

@Suite("A provider that asks its own container for what needs itself is refused, not left waiting forever")
struct CircularRequestTests {
    @Test("start() inside an eager provider: the build fails with circularRequest, and nothing hangs")
    func startInsideProvider() async throws {
        let box = ContainerBox()
        let log = OrderLog()
        let caught = Mutex<ContainerError?>(nil)
        let container = try ServiceContainer([
            countedSpec("settings", log: log),
            countedSpec("greeting", log: log) { _ in
                do {
                    _ = try await box.value.start()
                } catch let error as ContainerError {
                    caught.withLock { $0 = error }
                    throw error
                }
            },
        ])
        box.container.withLock { $0 = container }
        let error = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(30), "start()") { try await container.start() }
        }
        #expect(error?.code == .buildFailed)
        let refusal = caught.withLock { $0 }
        #expect(refusal?.code == .circularRequest)
        #expect(refusal?.message.contains("'greeting'") == true)
        #expect(refusal?.message.contains("dependsOn") == true)
        #expect(log.count(of: "greeting") == 1, "refused at once: the provider ran once")
    }

    @Test("service(_:) of a dependent of the calling service is refused; of an unrelated lazy one, answered")
    func serviceInsideProvider() async throws {
        let box = ContainerBox()
        let log = OrderLog()
        let outcomes = Mutex<[String]>([])
        let container = try ServiceContainer([
            countedSpec("base", log: log) { _ in
                // Needs base itself: refused.
                do {
                    _ = try await box.value.service(.made("above"))
                    outcomes.withLock { $0.append("above: answered") }
                } catch let error as ContainerError {
                    outcomes.withLock { $0.append("above: \(error.code)") }
                }
                // Needs nothing of base: built and answered while base runs.
                let other = try await withTimeout(.seconds(30), "service(other)") {
                    try await box.value.service(.made("other"))
                }
                outcomes.withLock { $0.append("other: \(other.name)") }
            },
            countedSpec("above", dependsOn: ["base"], log: log, start: .lazy),
            countedSpec("other", log: log, start: .lazy),
        ])
        box.container.withLock { $0 = container }
        let services = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        #expect(try services[.made("base")].name == "base")
        #expect(outcomes.withLock { $0 } == ["above: circularRequest", "other: other"])
        #expect(log.count(of: "above") == 0 && log.count(of: "other") == 1)
    }

    @Test("a provider reading an eager sibling it forgot to declare gets it once the sibling is built")
    func undeclaredSibling() async throws {
        let box = ContainerBox()
        let log = OrderLog()
        let gate = Gate()
        let container = try ServiceContainer([
            countedSpec("settings", log: log) { _ in try await gate.wait(timeout: .seconds(30), "the test") },
            countedSpec("greeting", log: log) { _ in
                gate.open()
                _ = try await box.value.service(.made("settings"))
            },
        ])
        box.container.withLock { $0 = container }
        let services = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        #expect(services.serviceNames.sorted() == ["greeting", "settings"])
        #expect(log.count(of: "settings") == 1 && log.count(of: "greeting") == 1)
    }
}
