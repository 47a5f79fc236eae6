import Container
import ContainerTesting
import Synchronization

/// The floor of scenario 3: tasks parked on a mutex-guarded list of continuations, then
/// released all at once; the last to park signals `allParked`.
final class ParkingLot: Sendable {
    private let state = Mutex<(released: Bool, parked: [CheckedContinuation<Int, Never>])>((false, []))
    private let expected: Int
    private let allParked: Gate

    init(expected: Int, allParked: Gate) {
        self.expected = expected
        self.allParked = allParked
    }

    func park() async -> Int {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            let (resumeNow, full) = state.withLock { state -> (Bool, Bool) in
                if state.released { return (true, false) }
                state.parked.append(continuation)
                return (false, state.parked.count == expected)
            }
            if resumeNow { continuation.resume(returning: 1) }
            if full { allParked.open() }
        }
    }

    func release() {
        let parked = state.withLock { state in
            state.released = true
            defer { state.parked = [] }
            return state.parked
        }
        for continuation in parked { continuation.resume(returning: 1) }
    }
}

/// Counts `start()` callers that joined a build (not the ready path), and opens a gate when
/// `expected` of them have.
final class JoinCounter: TraceSink {
    private let joined = Atomic<Int>(0)
    private let ready = Atomic<Int>(0)
    private let expected: Int
    let allJoined = Gate()

    init(expected: Int) { self.expected = expected }

    var joinedWhileBuilding: Int { joined.load(ordering: .relaxed) }
    var foundReady: Int { ready.load(ordering: .relaxed) }

    func record(_ event: TraceEvent) {
        guard case .callerJoined(_, let state, _) = event.kind else { return }
        if state == .ready {
            ready.wrappingAdd(1, ordering: .relaxed)
        } else if joined.wrappingAdd(1, ordering: .relaxed).newValue == expected {
            allJoined.open()
        }
    }
}

@inline(never) func opStart(_ container: ServiceContainer, _ sink: Sink) async throws {
    sink.object = try await container.start()
}

/// The floor of scenario 2: the same `@inline(never)` async call, storing a stored reference.
@inline(never) func opAsyncFloor(_ snapshot: AppServices, _ sink: Sink) async throws {
    sink.object = snapshot
}

/// Scenario 2: `start()` once the snapshot is published.
func startReadyScenario(_ settings: BenchSettings) async throws -> [Row] {
    let container = try ServiceContainer([ServiceSpec(BenchKeys.service) { _ in BenchService(number: 1) }])
    _ = try await container.start()
    let samples = try await perCallAsync(settings) { count in
        let sink = Sink()
        for _ in 0..<count { try await opStart(container, sink) }
        return sink.checksum
    }
    let snapshot = try await container.start()
    let floor = try await perCallAsync(settings) { count in
        let sink = Sink()
        for _ in 0..<count { try await opAsyncFloor(snapshot, sink) }
        return sink.checksum
    }
    let median = Summary(samples).median
    return [
        Row(
            "start", "await container.start() when ready, 1 task", unit: "ns/call", samples, goal: "≤ 100 ns",
            met: settings.smoke ? nil : median <= 100),
        Row("start", "floor: the same async call returning a stored reference", unit: "ns/call", floor),
    ]
}

/// Build runs of the joiners' provider (the check that every round builds once).
let joinerBuildRuns = Counter()

/// One round of scenario 3: `callers` tasks call `start()` on a container whose one provider
/// waits for a gate; once all have joined, the gate opens. Returns the round's nanoseconds.
func joinersContainerRound(callers: Int, counter: JoinCounter?) async throws -> UInt64 {
    let gate = Gate()
    let entered = Counter()
    let spec = ServiceSpec(BenchKeys.service) { _ in
        joinerBuildRuns.increment()
        await gate.wait()
        return BenchService(number: 3)
    }
    let container = try ServiceContainer([spec], trace: counter.map { [$0] } ?? [])
    let start = nanoseconds()
    let distinct = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
        for _ in 0..<callers {
            group.addTask {
                entered.increment()
                return ObjectIdentifier(try await container.start())
            }
        }
        if let counter {
            await counter.allJoined.wait()
        } else {
            // Without a trace sink: every caller has entered `start()`; let the last ones
            // reach their suspension point before the gate opens.
            while entered.count < callers { await Task.yield() }
            for _ in 0..<4 { await Task.yield() }
        }
        gate.open()
        var identities = Set<ObjectIdentifier>()
        for try await identity in group { identities.insert(identity) }
        return identities.count
    }
    let elapsed = nanoseconds() - start
    precondition(distinct == 1, "every joiner must receive the same snapshot")
    return elapsed
}

/// The floor of scenario 3: the same number of tasks parked on a Mutex-guarded continuation list.
func joinersFloorRound(callers: Int) async -> UInt64 {
    let allParked = Gate()
    let lot = ParkingLot(expected: callers, allParked: allParked)
    let start = nanoseconds()
    await withTaskGroup(of: Int.self) { group in
        for _ in 0..<callers { group.addTask { await lot.park() } }
        await allParked.wait()
        lot.release()
        for await _ in group {}
    }
    return nanoseconds() - start
}

/// The same floor driven the way ``joinersContainerRound(callers:counter:)`` is: the tasks of a
/// throwing group count themselves in and park; once all have entered (and a few yields later)
/// they are released, and the driver collects the identities they return into a set.
func joinersMirroredFloorRound(callers: Int) async throws -> UInt64 {
    let lot = ParkingLot(expected: callers + 1, allParked: Gate())  // never "all parked": not awaited
    let entered = Counter()
    let shared = BenchService(number: 3)
    let start = nanoseconds()
    let distinct = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
        for _ in 0..<callers {
            group.addTask {
                entered.increment()
                _ = await lot.park()
                return ObjectIdentifier(shared)
            }
        }
        while entered.count < callers { await Task.yield() }
        for _ in 0..<4 { await Task.yield() }
        lot.release()
        var identities = Set<ObjectIdentifier>()
        for try await identity in group { identities.insert(identity) }
        return identities.count
    }
    precondition(distinct == 1, "one identity")
    return nanoseconds() - start
}

/// Scenario 3: many `start()` callers join one build held open by a gate, then it is released.
func joinersScenario(_ settings: BenchSettings) async throws -> [Row] {
    let callers = settings.size(10_000, smoke: 500)
    let runs = joinerBuildRuns

    var containerSamples: [Double] = []
    var floorSamples: [Double] = []
    var mirroredSamples: [Double] = []
    var ratios: [Double] = []
    var mirroredRatios: [Double] = []
    for index in 0..<(settings.warmup + settings.samples) {
        runs.reset()
        let nanos = try await joinersContainerRound(callers: callers, counter: nil)
        precondition(runs.count == 1, "the build must run once")
        let floor = await joinersFloorRound(callers: callers)
        let mirrored = try await joinersMirroredFloorRound(callers: callers)
        if index >= settings.warmup {
            containerSamples.append(Double(nanos) / Double(callers))
            floorSamples.append(Double(floor) / Double(callers))
            mirroredSamples.append(Double(mirrored) / Double(callers))
            ratios.append(Double(nanos) / Double(floor))
            mirroredRatios.append(Double(nanos) / Double(mirrored))
        }
    }
    // One untimed round with a trace sink, to show the callers joined the running build.
    let counter = JoinCounter(expected: callers)
    runs.reset()
    _ = try await joinersContainerRound(callers: callers, counter: counter)
    let ratio = Summary(ratios).median
    return [
        Row(
            "joiners", "\(callers) concurrent start() joining one held build (per caller)", unit: "ns/caller",
            containerSamples),
        Row(
            "joiners", "floor: \(callers) tasks parked on Mutex<[continuation]> (per task)", unit: "ns/task",
            floorSamples),
        Row(
            "joiners", "floor, driven like the container (released after all entered, identities collected)",
            unit: "ns/task", mirroredSamples),
        Row(
            "joiners", "ratio container / floor (per round)", unit: "×", ratios, goal: "≤ 1.3×",
            met: settings.smoke ? nil : ratio <= 1.3),
        Row("joiners", "ratio container / floor driven like the container (per round)", unit: "×", mirroredRatios),
        Row(
            "joiners", "check: callers that joined the running build (traced round; build runs: \(runs.count))",
            unit: "callers", [Double(counter.joinedWhileBuilding)]),
    ]
}
