import ContainerTesting
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Container

/// A probe for the lifecycle tests: synchronous and asynchronous services that log every make
/// (begin and end, with the generation) and every teardown, and can be held on a thread gate.
final class Probe: Sendable {
    let log = OrderLog()
    let gates = Locked<[String: ThreadGate]>([:])
    let running = Locked<[String: Int]>([:])
    let maxRunning = Locked<[String: Int]>([:])

    func hold(_ name: String) -> ThreadGate {
        let gate = ThreadGate()
        gates.withLock { $0[name] = gate }
        return gate
    }

    func makes(_ name: String) -> Int { log.entries.count { $0.hasPrefix("make \(name) ") } }
    func tears(_ name: String) -> Int { log.entries.count { $0.hasPrefix("tear \(name) ") } }
    /// Every "make X gN" with its count of "tear X gN".
    func unbalanced() -> [String] {
        let entries = log.entries
        var made: [String: Int] = [:]
        var torn: [String: Int] = [:]
        for entry in entries {
            if entry.hasPrefix("make ") { made[String(entry.dropFirst(5)), default: 0] += 1 }
            if entry.hasPrefix("tear ") { torn[String(entry.dropFirst(5)), default: 0] += 1 }
        }
        var result: [String] = []
        for key in Set(made.keys).union(torn.keys).sorted()
        where made[key, default: 0] != 1 || torn[key, default: 0] != 1 {
            result.append("\(key): made \(made[key, default: 0]) torn \(torn[key, default: 0])")
        }
        return result
    }

    private func body(_ name: String, _ dependsOn: [String], _ context: ProviderContext) throws -> Built {
        let now = running.withLock {
            $0[name, default: 0] += 1; return $0[name]!
        }
        maxRunning.withLock { $0[name] = max($0[name] ?? 0, now) }
        defer { running.withLock { $0[name, default: 0] -= 1 } }
        let label = "\(name) g\(context.generation)\(context.scopeInstance.map { " @\($0)" } ?? "")"
        log.append("begin \(label)")
        if let gate = gates.withLock({ $0.removeValue(forKey: name) }) { try gate.pass() }
        for dependency in dependsOn { _ = try context[ServiceKey<Built>(dependency)] }
        log.append("make \(label)")
        return Built(service: name, generation: context.generation, instance: context.scopeInstance)
    }

    private func tearDown(_ name: String) -> @Sendable (Built) async throws -> Void {
        { [log] built in
            log.append("tear \(name) g\(built.generation)\(built.instance.map { " @\($0)" } ?? "")")
        }
    }

    func sync(
        _ name: String, _ dependsOn: [String] = [], lifetime: ServiceSpec.Lifetime = .app,
        start: StartPolicy = .eager
    ) -> ServiceSpec {
        ServiceSpec.synchronous(
            ServiceKey<Built>(name), dependsOn: dependsOn, lifetime: lifetime, start: start, tearDown: tearDown(name)
        ) { [self] context in try body(name, dependsOn, context) }
    }

    func async(
        _ name: String, _ dependsOn: [String] = [], lifetime: ServiceSpec.Lifetime = .app,
        start: StartPolicy = .eager
    ) -> ServiceSpec {
        ServiceSpec(
            ServiceKey<Built>(name), dependsOn: dependsOn, lifetime: lifetime, start: start,
            tearDown: tearDown(name)
        ) { [self] context in try body(name, dependsOn, context) }
    }
}

func key(_ name: String) -> ServiceKey<Built> { ServiceKey<Built>(name) }

/// What may follow `scope.closed` or `container.shutdown` (see the trace format): teardowns and
/// the end of a provider that was still running.
let lateEvents: Set<String> = ["node.tornDown", "node.succeeded", "node.failed", "node.cancelled", "build.cancelled"]

/// Waits until `watcher`'s events satisfy `condition`; opens `gate` when the wait fails, so the
/// thread it holds ends and the test can report.
func waitForTrace(
    _ what: String, _ watcher: TraceWatcher, releasingOnFailure gate: ThreadGate,
    until condition: @escaping @Sendable ([TraceEvent]) -> Bool
) async throws {
    do {
        try await watcher.wait(for: what, timeout: .seconds(30), until: condition)
    } catch {
        gate.open()
        throw error
    }
}
