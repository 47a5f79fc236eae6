import Container
import Synchronization

/// The value the hot-path scenarios resolve: an already-built singleton (a class, as most
/// services are, so returning it costs a retain and a release).
final class BenchService: Sendable {
    let number: Int
    init(number: Int) { self.number = number }
}

/// Keys of the hot-path graph.
enum BenchKeys {
    static let service = ServiceKey<BenchService>("service")
    static let fillers = (0..<7).map { ServiceKey<BenchService>("filler\($0)") }
}

/// What the floor baselines read: one object holding the singleton in each of the ways
/// peers store it.
final class FloorHolder: Sendable {
    let number: Int
    let service: BenchService
    /// The string-keyed registry of many DI libraries.
    let stringRegistry: Mutex<[String: any Sendable]>
    /// A type-keyed registry without a lock. `nonisolated(unsafe)`: `Any` is not `Sendable`,
    /// but this dictionary is immutable after `init` and its values are `Sendable` objects.
    nonisolated(unsafe) let typeRegistry: [ObjectIdentifier: Any]
    /// This container's previous design: the published snapshot behind a mutex.
    let mutexSnapshot: Mutex<AppServices?>

    init(service: BenchService, snapshot: AppServices) {
        self.number = service.number
        self.service = service
        var strings: [String: any Sendable] = [:]
        var types: [ObjectIdentifier: Any] = [:]
        let fillerTypes: [Any.Type] = [Int.self, String.self, Double.self, Bool.self, Float.self, UInt.self, Int8.self]
        for (index, type) in fillerTypes.enumerated() {
            strings["filler\(index)"] = BenchService(number: index)
            types[ObjectIdentifier(type)] = BenchService(number: index)
        }
        strings["service"] = service
        types[ObjectIdentifier(BenchService.self)] = service
        self.stringRegistry = Mutex(strings)
        self.typeRegistry = types
        self.mutexSnapshot = Mutex(snapshot)
    }
}

/// Stores the singleton; `get()` is one actor hop.
actor ServiceActor {
    let service: BenchService
    init(service: BenchService) { self.service = service }
    func get() -> BenchService { service }
}

/// Where an operation leaves what it read, as a caller keeps a service in a property:
/// storing a reference retains the new value and releases the old one, so every call pays
/// one retain/release pair, as a real caller does, and the optimizer cannot drop the read.
/// Padded to 128 bytes so that two tasks' sinks never share a cache line.
final class Sink: @unchecked Sendable {
    // Sendable: each sink is used by one task at a time; the harness reads it after the task ends.
    var object: AnyObject?
    var number = 0
    private let padding: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    )

    /// Folds what the sink holds into a checksum.
    var checksum: UInt {
        UInt(bitPattern: number) ^ (object.map { UInt(bitPattern: ObjectIdentifier($0).hashValue) } ?? 0)
    }
}

// MARK: The operations under test
//
// Each is `@inline(never)` and stores what it read into the caller's sink (a side effect,
// so no call is hoisted out of the loop or deleted).

@inline(never) func opLetField(_ holder: FloorHolder, _ sink: Sink) { sink.number = holder.number }

@inline(never) func opRetainRelease(_ holder: FloorHolder, _ sink: Sink) { sink.object = holder.service }

@inline(never) func opStringMutex(_ holder: FloorHolder, _ sink: Sink) {
    sink.object = holder.stringRegistry.withLock { $0["service"] }! as! BenchService
}

@inline(never) func opTypeDictionary(_ holder: FloorHolder, _ sink: Sink) {
    sink.object = holder.typeRegistry[ObjectIdentifier(BenchService.self)]! as! BenchService
}

@inline(never) func opMutexSnapshot(_ holder: FloorHolder, _ sink: Sink) {
    let snapshot = holder.mutexSnapshot.withLock { $0 }!
    do { sink.object = try snapshot[BenchKeys.service] } catch { lookupFailures.add(1, ordering: .relaxed) }
}

@inline(never) func opSnapshotLookup(_ services: AppServices, _ sink: Sink) {
    do { sink.object = try services[BenchKeys.service] } catch { lookupFailures.add(1, ordering: .relaxed) }
}

/// As ``opSnapshotLookup(_:_:)`` with the key passed in: no `static let` access (`swift_once`).
@inline(never) func opSnapshotLookupLocalKey(_ services: AppServices, _ key: ServiceKey<BenchService>, _ sink: Sink) {
    do { sink.object = try services[key] } catch { lookupFailures.add(1, ordering: .relaxed) }
}

@inline(never) func opCurrentLookup(_ container: ServiceContainer, _ sink: Sink) {
    guard let services = container.current else {
        lookupFailures.add(1, ordering: .relaxed)
        return
    }
    do { sink.object = try services[BenchKeys.service] } catch { lookupFailures.add(1, ordering: .relaxed) }
}

/// The hot-path read without a snapshot in hand: `container.resolve(key)` looks the value up
/// inside the slot's reader section and retains only the value, not the snapshot.
@inline(never) func opContainerResolve(_ container: ServiceContainer, _ sink: Sink) {
    do { sink.object = try container.resolve(BenchKeys.service) } catch { lookupFailures.add(1, ordering: .relaxed) }
}

@inline(never) func opActor(_ actor: ServiceActor, _ sink: Sink) async { sink.object = await actor.get() }

/// A loop of direct calls of `op` on one input: a timed loop has no closure or generic
/// indirection of its own (the compiler may still merge identical loops into one).
@inline(__always)
func loop<Input: Sendable>(_ input: Input, _ op: @escaping @Sendable (Input, Sink) -> Void) -> LoopBody {
    { count in
        let sink = Sink()
        for _ in 0..<count { op(input, sink) }
        return sink.checksum
    }
}

/// Scenario 1: resolving an already-built singleton, against the floors, 1 and 2 tasks.
func hotPathScenario(_ settings: BenchSettings) async throws -> [Row] {
    var specs = [ServiceSpec(BenchKeys.service) { _ in BenchService(number: 42) }]
    for key in BenchKeys.fillers { specs.append(ServiceSpec(key) { _ in BenchService(number: 0) }) }
    let container = try ServiceContainer(specs)
    let services = try await container.start()
    let holder = FloorHolder(service: try services[BenchKeys.service], snapshot: services)
    let actor = ServiceActor(service: holder.service)

    struct Case {
        let name: String
        let body: LoopBody
    }
    let cases = [
        Case(name: "floor: let field of a final class", body: loop(holder, opLetField)),
        Case(name: "floor: retain/release (keep a stored ref)", body: loop(holder, opRetainRelease)),
        Case(name: "floor: Mutex<[String: any Sendable]> + as!", body: loop(holder, opStringMutex)),
        Case(name: "floor: [ObjectIdentifier: Any] + as! (no lock)", body: loop(holder, opTypeDictionary)),
        Case(name: "ref: Mutex<AppServices?> + lookup (old design)", body: loop(holder, opMutexSnapshot)),
        Case(name: "(a) services[key] on a held snapshot", body: loop(services, opSnapshotLookup)),
        Case(
            name: "(a') same, key passed in (no static-let access)",
            body: { count in
                let sink = Sink()
                let key = BenchKeys.service
                for _ in 0..<count { opSnapshotLookupLocalKey(services, key, sink) }
                return sink.checksum
            }),
        Case(name: "(b) container.current + services[key]", body: loop(container, opCurrentLookup)),
        Case(name: "(b') container.resolve(key)", body: loop(container, opContainerResolve)),
    ]

    var rows: [Row] = []
    var floor: [Int: Double] = [:]
    for tasks in [1, 2] {
        for item in cases {
            let samples =
                tasks == 1
                ? perCall(settings, item.body) : await perCallConcurrent(settings, tasks: tasks, item.body)
            let median = Summary(samples).median
            if item.name.hasPrefix("floor: retain/release") { floor[tasks] = median }
            var goal: String?
            var met: Bool?
            // (b') is the same goal as (b) (rule 9 of the Coordinator rules article) reached through the other API.
            if item.name.hasPrefix("(a)") || item.name.hasPrefix("(b") {
                if tasks == 1 {
                    let limit = item.name.hasPrefix("(a)") ? 10.0 : 30.0
                    goal = "≤ \(Int(limit)) ns"
                    met = median <= limit
                } else if let floor = floor[tasks] {
                    goal = "≤ 2 × retain/release floor (\(format(2 * floor)) ns)"
                    met = median <= 2 * floor
                }
            }
            rows.append(
                Row(
                    "hotpath", "\(item.name), \(tasks) task\(tasks == 1 ? "" : "s")", unit: "ns/call", samples,
                    goal: goal, met: settings.smoke ? nil : met))
        }
        // The actor hop, awaited.
        let actorLoop: @Sendable (Int) async throws -> UInt = { count in
            let sink = Sink()
            for _ in 0..<count { await opActor(actor, sink) }
            return sink.checksum
        }
        let actorSamples =
            tasks == 1
            ? try await perCallAsync(settings, actorLoop)
            : try await perCallAsyncConcurrent(
                settings, tasks: tasks, count: settings.size(20_000, smoke: 1_000), actorLoop)
        rows.append(
            Row(
                "hotpath", "floor: await actor.get(), \(tasks) task\(tasks == 1 ? "" : "s")",
                unit: "ns/call", actorSamples))
    }
    return rows
}
