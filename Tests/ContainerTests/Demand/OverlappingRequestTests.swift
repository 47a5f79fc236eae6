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
                tasks.append(Task { try await container.start(needs: keys, as: "r\(request)") })
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
            // The trace says who added what: each node once, for a caller whose closure holds it.
            var added: [String] = []
            for event in trace.events {
                guard case .buildAdded(let nodes, let caller) = event.kind else { continue }
                let request = Self.requests[Int(caller.dropFirst())!]
                #expect(Set(nodes).isSubset(of: Set(request.flatMap { Self.closure(of: $0) })), "\(order): \(caller)")
                added += nodes
            }
            #expect(added.sorted() == ["base", "left", "right", "solo", "top"], "\(order): \(added)")
        }
    }

    @Test(
        "100 concurrent requests with random overlapping closures over 1,000 lazy services: provider calls = the union")
    func hundredRandomRequests() async throws {
        var random = SplitMix64(seed: 2_020)
        let log = OrderLog()
        var specs: [ServiceSpec] = []
        var dependencies: [[String]] = []
        for index in 0..<1_000 {
            let count = index == 0 ? 0 : Int.random(in: 0...min(3, index), using: &random)
            let inputs = Array(Set((0..<count).map { _ in "n\(Int.random(in: 0..<index, using: &random))" })).sorted()
            dependencies.append(inputs)
            specs.append(countedSpec("n\(index)", dependsOn: inputs, log: log, start: .lazy))
        }
        let container = try ServiceContainer(specs)
        let requests = (0..<100).map { _ in (0..<5).map { _ in Int.random(in: 0..<1_000, using: &random) } }
        // The union of the closures, counted independently of the container.
        var union = Set<Int>()
        var stack = requests.flatMap { $0 }
        while let node = stack.popLast() {
            guard union.insert(node).inserted else { continue }
            stack += dependencies[node].map { Int($0.dropFirst())! }
        }
        let answers = try await withTimeout(.seconds(60), "100 requests") {
            try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
                for (index, request) in requests.enumerated() {
                    let keys = request.map { ServiceKey<Made>.made("n\($0)").erased }
                    group.addTask { (index, try await container.start(needs: keys).serviceNames) }
                }
                var answers: [Int: [String]] = [:]
                for try await (index, names) in group { answers[index] = names }
                return answers
            }
        }
        #expect(answers.count == 100)
        #expect(log.entries.count == union.count, "each node of the union ran once, and nothing else ran")
        #expect(Set(log.entries).count == union.count)
        #expect(Set(log.entries) == Set(union.map { "n\($0)" }))
        for (index, request) in requests.enumerated() {
            var closure = Set<Int>()
            var pending = request
            while let node = pending.popLast() {
                guard closure.insert(node).inserted else { continue }
                pending += dependencies[node].map { Int($0.dropFirst())! }
            }
            let held = Set(answers[index] ?? [])
            #expect(closure.allSatisfy { held.contains("n\($0)") }, "request \(index) holds its whole closure")
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
