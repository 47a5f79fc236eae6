import ContainerTesting
import Testing

@testable import Container

/// Drives a ``JobSlot`` with random events the way the coordinator does (``JobSlot/next()`` after
/// every event that may free the slot), against a model: the job in flight, the queue, the
/// waiting operations and where each teardown record went.
struct JobSlotDriver: SeededDriver {
    typealias Slot = JobSlot<String, Int>

    /// The model's job in flight.
    enum Job {
        case idle
        case building(id: Int, handle: String?, supersededBy: Int??)
        case tearingDown([Slot.Teardown])
    }

    var random: SplitMix64
    var slot = Slot()
    var job = Job.idle
    /// Values queued and not yet handed to a teardown, with their owners.
    var queue: [(box: AnyServiceBox, owner: Int?)] = []
    /// Operations waiting, in the order they came, with the build each says it cancelled.
    var pending: [(id: Int, cancelled: BuildAttempt?)] = []
    /// Records routed to each waiting operation, and to nobody (yet).
    var owned: [Int: [String]] = [:]
    var unreported: [String] = []
    /// How many teardown jobs took each value, reports listed each record, and completions each operation had.
    var tornDown: [ObjectIdentifier: Int] = [:]
    /// Every value queued, held so that no identifier is reused.
    var enqueued: [AnyServiceBox] = []
    var reported: [String: Int] = [:]
    var completions: [Int: Int] = [:]
    var nextBuild = 1
    var nextOperation = 1
    var nextValue = 1
    var violations: [String] = []
    var history: [String] = []

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func step() {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<20: startBuild()
        case 20..<30: launch()
        case 30..<50: finishBuild()
        case 50..<65: operation()
        case 65..<70: supersedeByNobody()
        case 70..<90: finishTeardown()
        case 90..<95: noteCancelled()
        default:
            history.append("next")
            callNext()
        }
        check()
    }

    /// Ends the build, runs every teardown, and has one last operation take the unreported records;
    /// then every value must have been torn down once, every record and operation reported once.
    mutating func finish() {
        if case .building = job { finishBuild() }
        while case .tearingDown = job { finishTeardown() }
        operation()
        while case .tearingDown = job { finishTeardown() }
        check()
        if !pending.isEmpty || !unreported.isEmpty { violations.append("left over: \(pending), \(unreported)") }
        for box in enqueued where tornDown[ObjectIdentifier(box)] != 1 {
            violations.append("\(box.name) torn down \(tornDown[ObjectIdentifier(box)] ?? 0) times")
        }
        if tornDown.count != enqueued.count { violations.append("a value torn down that was never queued") }
        for (token, count) in reported where count != 1 { violations.append("\(token) reported \(count) times") }
        if reported.count != enqueued.count { violations.append("\(reported.count) of \(enqueued.count) reported") }
        for id in 1..<nextOperation where completions[id] != 1 {
            violations.append("operation \(id) completed \(completions[id] ?? 0) times")
        }
    }

    /// The slot's queries against the model, and its invariants.
    mutating func check() {
        violations += slot.invariantViolations()
        var expected: (idle: Bool, build: Int?, handle: String?) = (false, nil, nil)
        switch job {
        case .idle: expected.idle = true
        case .building(let id, let handle, let superseded): expected = (false, id, superseded == nil ? handle : nil)
        case .tearingDown: break
        }
        if slot.isIdle != expected.idle || slot.buildID != expected.build || slot.buildHandle != expected.handle {
            violations.append(
                "slot \(slot.isIdle) \(slot.buildID as Int?) \(slot.buildHandle as String?), model \(job)")
        }
        if slot.hasPendingOperations != !pending.isEmpty { violations.append("pending operations disagree") }
        if slot.unreported.map(\.service) != unreported {
            violations.append("unreported \(slot.unreported.map(\.service)), model \(unreported)")
        }
    }

    // MARK: Events

    mutating func startBuild() {
        guard case .idle = job else { return }
        let id = nextBuild
        nextBuild += 1
        history.append("build \(id) started")
        slot.buildStarted(id: id)
        job = .building(id: id, handle: nil, supersededBy: nil)
    }

    mutating func launch() {
        guard case .building(let id, nil, let superseded) = job else { return }
        history.append("build \(id) launched")
        slot.buildLaunched(id: id, handle: "h\(id)")
        job = .building(id: id, handle: "h\(id)", supersededBy: superseded)
    }

    mutating func finishBuild() {
        guard case .building(let id, _, let superseded) = job else { return }
        history.append("build \(id) finished")
        let end = slot.buildFinished(id: id)
        let expected: Slot.BuildEnd = superseded.map { .superseded(owner: $0) } ?? .current
        if end != expected { violations.append("build \(id) ended \(end), model \(expected)") }
        job = .idle
        if let owner = superseded {
            enqueue(count: Int.random(in: 0...3, using: &random), owner: owner)  // its late values
        } else if Int.random(in: 0..<3, using: &random) == 0 {
            enqueue(count: Int.random(in: 1...3, using: &random), owner: nil)  // a permanent failure's
        }
        callNext()
    }

    /// A reset, reload or shutdown: supersedes the build, retires values, waits for their teardown.
    mutating func operation() {
        let id = nextOperation
        nextOperation += 1
        history.append("operation \(id)")
        var cancelled: BuildAttempt?
        supersede(owner: id)
        if case .building(let build, _, .some(.some(id))) = job {
            cancelled = BuildAttempt(generation: id, attempt: build)
        }
        enqueue(count: Int.random(in: 0...3, using: &random), owner: id)
        slot.add(
            .init(
                id: id, waiter: id,
                report: ResetReport(reason: .reset, from: id, to: id, invalidated: [], carriedOver: [])))
        pending.append((id, nil))
        if let cancelled {
            slot.noteCancelled(cancelled, by: id)
            pending[pending.count - 1].cancelled = cancelled
        }
        callNext()
    }

    mutating func supersedeByNobody() {
        history.append("supersede(owner: nil)")
        supersede(owner: nil)
    }

    mutating func supersede(owner: Int?) {
        let handle = slot.supersedeBuild(owner: owner)
        guard case .building(let id, let expected, nil) = job else {
            if handle != nil { violations.append("supersede gave \(handle as String?) with no build to supersede") }
            return
        }
        if handle != expected { violations.append("supersede gave \(handle as String?), model \(expected as String?)") }
        job = .building(id: id, handle: expected, supersededBy: .some(owner))
    }

    /// Notes a cancellation in a waiting operation's report, or in one that does not wait.
    mutating func noteCancelled() {
        let id = Int.random(in: 1...(nextOperation + 1), using: &random)
        let build = BuildAttempt(generation: 100, attempt: nextValue)
        history.append("noteCancelled \(build) by \(id)")
        slot.noteCancelled(build, by: id)
        if let index = pending.firstIndex(where: { $0.id == id }) { pending[index].cancelled = build }
    }

    mutating func finishTeardown() {
        guard case .tearingDown(let batch) = job else { return }
        history.append("teardown of \(batch.map(\.box.name)) finished")
        slot.teardownFinished(
            batch.map { .init(owner: $0.owner, record: .init(service: $0.box.name, generation: 1, error: nil)) })
        for item in batch {
            if let owner = item.owner, pending.contains(where: { $0.id == owner }) {
                owned[owner, default: []].append(item.box.name)
            } else {
                unreported.append(item.box.name)
            }
        }
        job = .idle
        callNext()
    }

    /// Values made in random order, queued in another.
    mutating func enqueue(count: Int, owner: Int?) {
        var boxes: [AnyServiceBox] = []
        for _ in 0..<count {
            boxes.append(
                ServiceBox(0, name: "v\(nextValue)", builtIn: BuildAttempt(generation: 1, attempt: 1), tearDown: nil))
            nextValue += 1
        }
        boxes.shuffle(using: &random)
        history.append("enqueue \(boxes.map(\.name)) for \(owner as Int?)")
        slot.enqueue(boxes, owner: owner)
        for box in boxes {
            queue.append((box, owner))
            enqueued.append(box)
        }
    }

    /// ``JobSlot/next()``, against what the model expects of it.
    mutating func callNext() {
        let next = slot.next()
        guard case .idle = job else {
            guard case .idle(let completed) = next, completed.isEmpty else {
                return violations.append("next() with a job in flight gave \(next)")
            }
            return
        }
        if !queue.isEmpty {
            let expected = queue.sorted { $0.box.sequence > $1.box.sequence }
            queue = []
            guard case .tearDown(let batch) = next else {
                return violations.append("next() gave \(next), not a teardown")
            }
            let same =
                batch.count == expected.count
                && zip(batch, expected).allSatisfy { $0.box === $1.box && $0.owner == $1.owner }
            if !same { violations.append("teardown \(batch.map(\.box.name)), model \(expected.map(\.box.name))") }
            for item in batch { tornDown[ObjectIdentifier(item.box), default: 0] += 1 }
            job = .tearingDown(batch)
            return
        }
        guard case .idle(let completed) = next else { return violations.append("next() gave \(next), not idle") }
        if completed.map(\.waiter) != pending.map(\.id) {
            violations.append("completed \(completed.map(\.waiter)), model \(pending.map(\.id))")
        }
        for (index, (waiter, report)) in completed.enumerated() {
            completions[waiter, default: 0] += 1
            let expected = (index == 0 ? unreported : []) + (owned[waiter] ?? [])
            let services = report.tornDown.map(\.service)
            if services != expected { violations.append("operation \(waiter) reported \(services), model \(expected)") }
            if report.operation != waiter || report.from != waiter {
                violations.append("report of \(waiter) is another's")
            }
            let cancelled = pending.first { $0.id == waiter }?.cancelled
            if report.cancelledBuild != cancelled {
                violations.append("operation \(waiter) cancelled \(report.cancelledBuild as BuildAttempt?)")
            }
            for service in services { reported[service, default: 0] += 1 }
            owned[waiter] = nil
        }
        if !completed.isEmpty { unreported = [] }
        pending = []
    }
}
