import ContainerTesting
import Dispatch
import Foundation
import Observation
import Synchronization
import TestSupport
import Testing

@testable import Container

/// ObservingTheServices.md, "An Observable view for SwiftUI": "Reading `services[key]` tracks that
/// service alone: a new snapshot that keeps its value tells no one who read only it." and "the
/// services it rebuilds read `nil` (their readers are told), those it carries over keep their
/// value (their readers are not told)".
@Suite("Lifecycle: ObservedServices tells only the readers of what changed")
struct ObservedCarryTests {
    @MainActor
    @Test(
        "a reset rebuilding b: readers of b are told, readers of the carried-over a are not", arguments: [false, true])
    func carried(scope: Bool) async throws {
        let probe = Probe()
        let container = ServiceContainer(
            graph: try ServiceGraph(
                [probe.async("a"), probe.async("b"), probe.async("r", ["a", "b"], lifetime: .scope("s"))], scopes: ["s"]
            ))
        let instance = try container.openScope("s", id: "i")
        let observed = scope ? ObservedServices(instance) : ObservedServices(container)
        if scope { _ = try await instance.start() } else { _ = try await container.start() }
        try await withTimeout(.seconds(30), "observed g1") { @MainActor in
            while observed.snapshot == nil { await Task.yield() }
        }
        let toldA = Counter()
        let toldB = Counter()
        withObservationTracking {
            _ = observed[key("a")]
        } onChange: {
            toldA.increment()
        }
        withObservationTracking {
            _ = observed[key("b")]
        } onChange: {
            toldB.increment()
        }
        let before = observed.snapshot
        let aBefore = observed[key("a")]
        _ = try await container.reset(invalidating: ["b"])
        if scope { _ = try await instance.start() } else { _ = try await container.start() }
        let after = scope ? instance.current : container.current
        try await withTimeout(.seconds(30), "observed the new snapshot") { @MainActor in
            while observed.snapshot == nil || observed.snapshot === before || observed.snapshot !== after {
                await Task.yield()
            }
        }
        #expect(observed[key("a")] === aBefore, "a kept its value (the same instance) in the new snapshot")
        #expect(toldB.count == 1, "readers of b told once: \(toldB.count)")
        #expect(toldA.count == 0, "readers of a (carried over) are not told: \(toldA.count)")
        #expect(observed[key("a")] != nil && observed[key("b")]?.generation == 2)
        _ = try await container.shutdown()
    }
}
