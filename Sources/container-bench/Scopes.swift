import Container
import Foundation
import Synchronization

// Scenario 10 (issue 10): scope instances. Opening an instance of three services on a ready
// app and getting its snapshot, against the same three providers in a bare task group; 10,000
// instances open at once (memory per instance, time to close them); an app service read through
// an instance against `container.resolve`.

/// Keys of the scope benchmark's graph: one app service, three `push` services.
enum ScopeKeys {
    static let app = ServiceKey<BenchService>("app")
    static let first = ServiceKey<BenchService>("pushFirst")
    static let second = ServiceKey<BenchService>("pushSecond")
    static let third = ServiceKey<BenchService>("pushThird")
}

/// The three scoped providers' work: what the floor runs too.
@inline(never) func makeScoped(_ number: Int, _ inputs: BenchService...) -> BenchService {
    BenchService(number: inputs.reduce(number) { $0 &+ $1.number })
}

/// `--inline-budget MICROSECONDS`: the scope fixture's scheduler tuning (`SchedulerTuning.inlineBudget`) (checked by
/// `parseOptions`; absent: the default), to compare builds with and without quick nodes inline.
let scopeInlineBudget: Duration? = {
    let arguments = CommandLine.arguments
    guard let flag = arguments.firstIndex(of: "--inline-budget"), flag + 1 < arguments.count,
        let micros = Int(arguments[flag + 1])
    else { return nil }
    return .microseconds(micros)
}()

/// A ready app with a `push` scope of three services: `pushFirst` reads the app service,
/// `pushSecond` and `pushThird` read `pushFirst` (a small diamond: two levels, one fan-out).
struct ScopeFixture: Sendable {
    let container: ServiceContainer
    let app: BenchService

    static func make() async throws -> ScopeFixture {
        let specs = [
            ServiceSpec(ScopeKeys.app) { _ in BenchService(number: 1) },
            ServiceSpec(ScopeKeys.first, dependsOn: ["app"], lifetime: .scope("push")) { context in
                makeScoped(2, try context[ScopeKeys.app])
            },
            ServiceSpec(ScopeKeys.second, dependsOn: ["pushFirst"], lifetime: .scope("push")) { context in
                makeScoped(3, try context[ScopeKeys.first])
            },
            ServiceSpec(ScopeKeys.third, dependsOn: ["pushFirst"], lifetime: .scope("push")) { context in
                makeScoped(4, try context[ScopeKeys.first])
            },
        ]
        let tuning = scopeInlineBudget.map { SchedulerTuning(inlineBudget: $0) } ?? .default
        let container = ServiceContainer(graph: try ServiceGraph(specs, scopes: ["push"]), tuning: tuning)
        let app = try await container.start()[ScopeKeys.app]
        return ScopeFixture(container: container, app: app)
    }

    /// The floor of (a): the same three providers' work in a bare task group, in dependency order.
    func bareScopeBuild() async -> Int {
        let app = self.app
        let first = await withTaskGroup(of: BenchService.self) { group in
            group.addTask { makeScoped(2, app) }
            return await group.next() ?? app
        }
        return await withTaskGroup(of: BenchService.self) { group in
            group.addTask { makeScoped(3, first) }
            group.addTask { makeScoped(4, first) }
            var sum = first.number
            for await value in group { sum &+= value.number }
            return sum
        }
    }
}

@inline(never) func opScopeResolve(_ instance: ScopeInstance, _ sink: Sink) {
    do { sink.object = try instance.resolve(ScopeKeys.app) } catch { lookupFailures.add(1, ordering: .relaxed) }
}

@inline(never) func opAppResolve(_ container: ServiceContainer, _ sink: Sink) {
    do { sink.object = try container.resolve(ScopeKeys.app) } catch { lookupFailures.add(1, ordering: .relaxed) }
}

@inline(never) func opScopeSnapshotLookup(_ snapshot: AppServices, _ sink: Sink) {
    do { sink.object = try snapshot[ScopeKeys.app] } catch { lookupFailures.add(1, ordering: .relaxed) }
}

/// Scenario 10: scope instances.
func scopesScenario(_ settings: BenchSettings) async throws -> [Row] {
    let fixture = try await ScopeFixture.make()
    let container = fixture.container
    var rows: [Row] = []

    // (a) Open + start, one instance at a time, against the bare task group.
    let batch = settings.size(2_000, smoke: 100)
    var openSamples: [Double] = []
    var openOnlySamples: [Double] = []
    var closeSamples: [Double] = []
    var floorSamples: [Double] = []
    var ratios: [Double] = []
    var round = 0
    for index in 0..<(settings.warmup + settings.samples) {
        var instances: [ScopeInstance] = []
        instances.reserveCapacity(batch)
        let start = nanoseconds()
        var openNanos: UInt64 = 0
        for _ in 0..<batch {
            round += 1
            let openStart = nanoseconds()
            let instance = try container.openScope("push", id: "a\(round)")
            openNanos += nanoseconds() - openStart
            _ = try await instance.start()
            instances.append(instance)
        }
        let opened = nanoseconds()
        for instance in instances { try await instance.close() }
        let closed = nanoseconds()
        let floorStart = nanoseconds()
        var sum = 0
        for _ in 0..<batch { sum &+= await fixture.bareScopeBuild() }
        let floor = nanoseconds() - floorStart
        checksum.bitwiseXor(UInt(bitPattern: sum), ordering: .relaxed)
        if index >= settings.warmup {
            openSamples.append(Double(opened - start) / Double(batch) / 1_000)
            openOnlySamples.append(Double(openNanos) / Double(batch) / 1_000)
            closeSamples.append(Double(closed - opened) / Double(batch) / 1_000)
            floorSamples.append(Double(floor) / Double(batch) / 1_000)
            ratios.append(Double(opened - start) / Double(floor))
        }
    }
    let ratio = Summary(ratios).median
    rows.append(
        Row(
            "scopes", "(a) openScope + start() of 3 services on a ready app, per instance", unit: "µs",
            openSamples))
    rows.append(Row("scopes", "(a) of which openScope alone, per instance", unit: "µs", openOnlySamples))
    rows.append(
        Row("scopes", "(a) floor: the same 3 providers in a bare task group, per instance", unit: "µs", floorSamples))
    rows.append(
        Row(
            "scopes", "(a) ratio open + start / floor", unit: "×", ratios, goal: "≤ 1.3×",
            met: settings.smoke ? nil : ratio <= 1.3))
    rows.append(
        Row("scopes", "(a) close() of a started instance (3 teardowns), per instance", unit: "µs", closeSamples))

    // (b) Many instances open at once: memory per instance, then closing them all.
    let count = settings.size(10_000, smoke: 500)
    rows += try await manyInstances(container, count: count, start: false, settings)
    rows += try await manyInstances(container, count: count, start: true, settings)

    // (c) An app service read through an instance's snapshot, against `container.resolve`.
    let instance = try container.openScope("push", id: "reader")
    let snapshot = try await instance.start()
    let appSnapshot = try await container.start()
    let scopeResolve = perCall(settings, loop(instance, opScopeResolve))
    let appResolve = perCall(settings, loop(container, opAppResolve))
    let scopeLookup = perCall(settings, loop(snapshot, opScopeSnapshotLookup))
    let appLookup = perCall(settings, loop(appSnapshot, opScopeSnapshotLookup))
    try await instance.close()
    let resolveRatios = zip(scopeResolve, appResolve).map { $0 / $1 }
    let resolveRatio = Summary(resolveRatios).median
    rows.append(Row("scopes", "(c) instance.resolve(appKey), 1 task", unit: "ns/call", scopeResolve))
    rows.append(Row("scopes", "(c) container.resolve(appKey), 1 task", unit: "ns/call", appResolve))
    rows.append(
        Row(
            "scopes", "(c) ratio instance.resolve / container.resolve", unit: "×", resolveRatios, goal: "≤ 1.5×",
            met: settings.smoke ? nil : resolveRatio <= 1.5))
    rows.append(Row("scopes", "(c) scopeSnapshot[appKey] on a held snapshot, 1 task", unit: "ns/call", scopeLookup))
    rows.append(Row("scopes", "(c) appSnapshot[appKey] on a held snapshot, 1 task", unit: "ns/call", appLookup))
    return rows
}

/// (b): `count` instances open at once (started or not): memory per instance and closing them all.
private func manyInstances(
    _ container: ServiceContainer, count: Int, start: Bool, _ settings: BenchSettings
) async throws -> [Row] {
    let what = start ? "opened and started" : "opened (not started)"
    // Two rounds: the resident growth of the first (fresh pages), the malloc'd bytes and the
    // closing time of the second (a warm allocator).
    var bytesPerInstance = 0.0
    var residentPerInstance = 0.0
    var closeTimes: [Double] = []
    var valueBytes = 0.0
    for round in 0..<2 {
        let heapBefore = mallocedBytes()
        let residentBefore = residentBytes()
        var instances: [ScopeInstance] = []
        instances.reserveCapacity(count)
        for index in 0..<count {
            let instance = try container.openScope("push", id: "b\(start)\(round)-\(index)")
            if start { _ = try await instance.start() }
            instances.append(instance)
        }
        let heapAfter = mallocedBytes()
        let residentAfter = residentBytes()
        if start, let snapshot = instances.first?.current {
            // The three values themselves (not the container's part): their malloc'd size.
            valueBytes = try [ScopeKeys.first, ScopeKeys.second, ScopeKeys.third].reduce(0.0) { sum, key in
                sum + Double(mallocSize(of: try snapshot[key]))
            }
        }
        let closeStart = nanoseconds()
        for instance in instances { try await instance.close() }
        let closeEnd = nanoseconds()
        if round == 0 {
            // The first round takes fresh pages; the second reuses what the first freed.
            residentPerInstance = Double(residentAfter - residentBefore) / Double(count)
        } else {
            if let heapBefore, let heapAfter { bytesPerInstance = Double(heapAfter - heapBefore) / Double(count) }
            closeTimes = [Double(closeEnd - closeStart) / 1e6]
        }
    }
    var rows = [
        Row(
            "scopes", "(b) \(count) instances \(what): malloc'd bytes per instance", unit: "B",
            [bytesPerInstance],
            goal: start ? "≤ 2 KB + values (\(Int(valueBytes)) B)" : nil,
            met: settings.smoke || !start ? nil : bytesPerInstance <= 2_048 + valueBytes),
        Row(
            "scopes", "(b) \(count) instances \(what): RSS growth per instance (first round)", unit: "B",
            [residentPerInstance]),
        Row("scopes", "(b) closing all \(count) instances \(what), one after another", unit: "ms", closeTimes),
    ]
    if start { rows.append(Row("scopes", "(b) the 3 scoped values' own malloc'd size", unit: "B", [valueBytes])) }
    return rows
}

/// The size malloc gave `object` (glibc's `malloc_usable_size`, found at run time; 0 elsewhere).
func mallocSize(of object: AnyObject) -> Int {
    typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_usable_size") else { return 0 }
    return unsafeBitCast(symbol, to: UsableSize.self)(Unmanaged.passUnretained(object).toOpaque())
}
