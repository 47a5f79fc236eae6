import ContainerTesting
import Testing

@testable import Container

@Suite("Overlapping requests share one growing build: every node runs once (Demand-driven start-up)")
struct OverlappingRequestTests {
    /// Four requests whose closures overlap: `left` and `right` share `base`, `top` holds both,
    /// the last asks for `base` and the independent `solo`.
    static let requests: [[String]] = [["left"], ["right"], ["top"], ["base", "solo"]]

    /// Every order of `items`.
    static func permutations<T>(_ items: [T]) -> [[T]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index in
            var rest = items
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }

    @Test("in every arrival order, while the shared node is held: one build, each provider once, each closure whole")
    func everyArrivalOrder() async throws {
        let orders = Self.permutations(Array(Self.requests.indices))
        #expect(orders.count == 24)
        for order in orders {
            let log = OrderLog()
            let gate = Gate()
            let trace = TraceWatcher()
            let container = try ServiceContainer(
                [
                    countedSpec("base", log: log, start: .lazy) { _ in
                        try await gate.wait(timeout: .seconds(30), "the test to open base")
                    },
                    countedSpec("left", dependsOn: ["base"], log: log, start: .lazy),
                    countedSpec("right", dependsOn: ["base"], log: log, start: .lazy),
                    countedSpec("top", dependsOn: ["left", "right"], log: log, start: .lazy),
                    countedSpec("solo", log: log, start: .lazy),
                ], trace: [trace])
            var tasks: [Task<AppServices, any Error>] = []
            for (arrived, request) in order.enumerated() {
                let keys = Self.requests[request].map { ServiceKey<Made>.made($0).erased }
                tasks.append(Task { try await container.start(needs: keys) })
                // The next request arrives only once this one has joined the build.
                try await trace.wait(for: "request \(arrived + 1) of \(order) to join") {
                    $0.count { $0.kind.name == "caller.joined" } == arrived + 1
                }
            }
            #expect(log.count(of: "left") == 0, "nothing above base runs before the gate opens (\(order))")
            gate.open()
            for (task, request) in zip(tasks, order) {
                let services = try await withTimeout(.seconds(30), "request \(Self.requests[request])") {
                    try await task.value
                }
                let closure = Set(Self.requests[request].flatMap { Self.closure(of: $0) })
                #expect(closure.isSubset(of: Set(services.serviceNames)), "\(order): \(services.serviceNames)")
            }
            for name in ["base", "left", "right", "top", "solo"] {
                #expect(log.count(of: name) == 1, "\(order): \(name) ran \(log.count(of: name)) times")
            }
            #expect(trace.count("build.started") == 1, "\(order): one build, grown by every request")
        }
    }

    /// A service's closure in the graph above.
    static func closure(of name: String) -> [String] {
        switch name {
        case "left", "right": [name, "base"]
        case "top": ["top", "left", "right", "base"]
        default: [name]
        }
    }
}
