import ContainerTesting
import TestSupport
import Testing

@testable import Container

/// The coordinator's one job in flight, its teardown queue and its waiting operations, as a value
/// driven with string build handles and integer operation waiters (STYLE rule 12).
@Suite("Job slot as a value")
struct JobSlotTests {
    typealias Slot = JobSlot<String, Int>

    static func box(_ name: String) -> AnyServiceBox {
        ServiceBox(0, name: name, builtIn: BuildAttempt(generation: 1, attempt: 1), tearDown: nil)
    }

    /// Operation `id`, waited for by waiter `id`, whose report says it went from generation `id`.
    static func operation(_ id: Int) -> Slot.Operation {
        .init(
            id: id, waiter: id,
            report: ResetReport(reason: .reset, from: id, to: id + 1, invalidated: [], carriedOver: []))
    }

    /// The teardown job of `next`, or `nil` (recorded) when it is not one.
    static func batch(
        _ next: Slot.Next, sourceLocation: SourceLocation = #_sourceLocation
    ) -> [Slot.Teardown]? {
        guard case .tearDown(let batch) = next else {
            Issue.record("expected a teardown job, got \(next)", sourceLocation: sourceLocation)
            return nil
        }
        return batch
    }

    /// The operations `next` completes, or `nil` (recorded) when it starts a teardown.
    static func completed(
        _ next: Slot.Next, sourceLocation: SourceLocation = #_sourceLocation
    ) -> [(waiter: Int, report: ResetReport)]? {
        guard case .idle(let completed) = next else {
            Issue.record("expected no job, got \(next)", sourceLocation: sourceLocation)
            return nil
        }
        return completed
    }

    /// Each value's record: the service's name, failing when `error`.
    static func records(_ batch: [Slot.Teardown], error: String? = nil) -> [Slot.TeardownRecord] {
        batch.map { .init(owner: $0.owner, record: .init(service: $0.box.name, generation: 1, error: error)) }
    }

    static func expectValid(_ slot: Slot, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(slot.invariantViolations().isEmpty, "\(slot.invariantViolations())", sourceLocation: sourceLocation)
    }

    @Test("A build's life: started, launched, finished as the current build")
    func buildLifecycle() {
        var slot = Slot()
        #expect(slot.isIdle && slot.buildID == nil && slot.buildHandle == nil && !slot.hasPendingOperations)
        slot.buildStarted(id: 4)
        #expect(!slot.isIdle && slot.buildID == 4 && slot.buildHandle == nil, "no task yet")
        slot.buildLaunched(id: 4, handle: "h4")
        #expect(slot.buildID == 4 && slot.buildHandle == "h4")
        Self.expectValid(slot)
        #expect(slot.buildFinished(id: 4) == .current)
        #expect(slot.isIdle && slot.buildID == nil && slot.buildHandle == nil)
        #expect(Self.completed(slot.next())?.isEmpty == true, "nothing queued, nobody waits")
        Self.expectValid(slot)
    }

    @Test("Superseding hands back the handle once; the build then ends superseded, reported by its owner")
    func supersede() {
        var slot = Slot()
        #expect(slot.supersedeBuild(owner: 1) == nil, "no build runs")
        slot.buildStarted(id: 1)
        slot.buildLaunched(id: 1, handle: "h1")
        #expect(slot.supersedeBuild(owner: 7) == "h1")
        #expect(slot.buildHandle == nil && slot.buildID == 1, "still in flight, but no longer to escalate")
        #expect(slot.supersedeBuild(owner: 8) == nil, "superseded already: the first owner keeps it")
        #expect(slot.buildFinished(id: 1) == .superseded(owner: 7))
        #expect(slot.isIdle)

        // Superseded by nobody's report (`.some(nil)`), which is not the same as not superseded.
        slot.buildStarted(id: 2)
        slot.buildLaunched(id: 2, handle: "h2")
        #expect(slot.supersedeBuild(owner: nil) == "h2")
        #expect(slot.supersedeBuild(owner: 3) == nil)
        #expect(slot.buildFinished(id: 2) == .superseded(owner: nil))

        // Superseded before its task was recorded: no handle to cancel, and none once launched.
        slot.buildStarted(id: 3)
        #expect(slot.supersedeBuild(owner: 9) == nil)
        slot.buildLaunched(id: 3, handle: "h3")
        #expect(slot.buildHandle == nil)
        #expect(slot.buildFinished(id: 3) == .superseded(owner: 9))
        Self.expectValid(slot)
    }

    @Test("A teardown job takes the whole queue, newest value first, each with its owner")
    func teardownOrder() {
        var slot = Slot()
        let a = Self.box("a")
        let b = Self.box("b")
        let c = Self.box("c")
        let d = Self.box("d")
        // Queued out of creation order, by three owners.
        slot.enqueue([b, a], owner: 1)
        slot.enqueue([d], owner: nil)
        slot.enqueue([c], owner: 2)
        guard let batch = Self.batch(slot.next()) else { return }
        #expect(batch.map(\.box.name) == ["d", "c", "b", "a"], "dependents (made later) first")
        #expect(batch.map(\.owner) == [nil, 2, 1, 1])
        #expect(!slot.isIdle && slot.buildID == nil, "a teardown job is in flight")
        #expect(Self.completed(slot.next())?.isEmpty == true, "one job at a time: no second batch")

        // Values retired while the teardown runs wait for the next job.
        let e = Self.box("e")
        slot.enqueue([e], owner: 3)
        Self.expectValid(slot)
        slot.teardownFinished(Self.records(batch))
        guard let second = Self.batch(slot.next()) else { return }
        #expect(second.map(\.box.name) == ["e"] && second.map(\.owner) == [3])
        slot.teardownFinished(Self.records(second))
        #expect(slot.isIdle)
        // Records of owners with no waiting operation are kept for the next report.
        #expect(slot.unreported.map(\.service) == ["d", "c", "b", "a", "e"])
        Self.expectValid(slot)
    }

    @Test("Operations with nothing to wait for complete at the next idle step, in the order they came")
    func operationsCompleteWhenIdle() {
        var slot = Slot()
        slot.add(Self.operation(2))
        slot.add(Self.operation(1))
        #expect(slot.hasPendingOperations)
        guard let completed = Self.completed(slot.next()) else { return }
        #expect(completed.map(\.waiter) == [2, 1])
        #expect(completed.map(\.report.operation) == [2, 1], "each report names its operation")
        #expect(completed.map(\.report.from) == [2, 1] && completed.allSatisfy { $0.report.tornDown.isEmpty })
        #expect(!slot.hasPendingOperations)
        #expect(Self.completed(slot.next())?.isEmpty == true, "each operation completes once")
        Self.expectValid(slot)
    }

    @Test("An operation added during a build waits for it; the build's late values go to it")
    func operationWaitsForBuild() {
        var slot = Slot()
        slot.buildStarted(id: 1)
        slot.buildLaunched(id: 1, handle: "h1")
        #expect(slot.supersedeBuild(owner: 5) == "h1")
        slot.add(Self.operation(5))
        slot.noteCancelled(BuildAttempt(generation: 1, attempt: 1), by: 5)
        slot.noteCancelled(BuildAttempt(generation: 9, attempt: 9), by: 6)  // no such operation: ignored
        #expect(Self.completed(slot.next())?.isEmpty == true, "a build is in flight")
        Self.expectValid(slot)

        guard case .superseded(let owner) = slot.buildFinished(id: 1) else { return fail("superseded") }
        let late = Self.box("late")
        slot.enqueue([late], owner: owner)
        guard let batch = Self.batch(slot.next()) else { return }
        #expect(batch.count == 1 && batch[0].box === late && batch[0].owner == 5)
        #expect(Self.completed(slot.next())?.isEmpty == true, "the operation waits for the teardown")
        slot.teardownFinished(Self.records(batch, error: "boom"))
        guard let completed = Self.completed(slot.next()) else { return }
        #expect(completed.map(\.waiter) == [5])
        #expect(completed.first?.report.tornDown == [.init(service: "late", generation: 1, error: "boom")])
        #expect(completed.first?.report.cancelledBuild == BuildAttempt(generation: 1, attempt: 1))
        #expect(completed.first?.report.failures.count == 1)
        Self.expectValid(slot)
    }

    @Test("Each record goes to its owner's report; unowned ones go to the first report, once")
    func recordsToOwners() {
        var slot = Slot()
        // A permanent failure's values, torn down before any operation exists.
        slot.enqueue([Self.box("p")], owner: nil)
        guard let first = Self.batch(slot.next()) else { return }
        slot.teardownFinished(Self.records(first))
        #expect(Self.completed(slot.next())?.isEmpty == true)
        #expect(slot.unreported.map(\.service) == ["p"], "kept for the next report and the status")
        Self.expectValid(slot)

        let x = Self.box("x")
        let y = Self.box("y")
        let z = Self.box("z")
        let stray = Self.box("stray")
        slot.add(Self.operation(1))
        slot.enqueue([x], owner: 1)
        slot.add(Self.operation(2))
        slot.enqueue([y, stray], owner: 2)
        slot.enqueue([z], owner: nil)
        guard let batch = Self.batch(slot.next()) else { return }
        // The storage pairs each value with its owner; an owner with no operation (99) is unreported.
        let records = Self.records(batch).map { item in
            item.record.service == "stray" ? Slot.TeardownRecord(owner: 99, record: item.record) : item
        }
        slot.teardownFinished(records)
        guard let completed = Self.completed(slot.next()) else { return }
        #expect(completed.map(\.waiter) == [1, 2])
        // Torn down newest first: stray (no such operation), z (nobody's), y, x.
        let earliest = completed.first?.report.tornDown.map(\.service)
        #expect(earliest == ["p", "stray", "z", "x"], "the unreported, then its own, in the order they ran")
        #expect(completed.last?.report.tornDown.map(\.service) == ["y"])
        #expect(slot.unreported.isEmpty, "reported once")
        Self.expectValid(slot)
    }

    @Test("An idle slot with queued values or waiting operations breaks the invariant until next()")
    func invariantUntilNext() {
        var slot = Slot()
        slot.enqueue([Self.box("a")], owner: nil)
        #expect(!slot.invariantViolations().isEmpty, "queued while idle and nothing started")
        _ = slot.next()
        Self.expectValid(slot)
        slot.teardownFinished([])
        #expect(slot.invariantViolations().isEmpty, "nothing left queued")

        slot.add(Self.operation(1))
        #expect(!slot.invariantViolations().isEmpty, "an operation waits while idle")
        _ = slot.next()
        Self.expectValid(slot)

        // Queued during a build is fine: the build's end calls next().
        slot.buildStarted(id: 1)
        slot.enqueue([Self.box("b")], owner: nil)
        slot.add(Self.operation(2))
        Self.expectValid(slot)
    }

    @Test("Random builds, operations and teardowns: every value torn down once, every record reported once")
    func randomSequences() async throws {
        for seed in UInt64(1)...20 {
            var driver = JobSlotDriver(seed: seed)
            guard try await drive(&driver, steps: 3_000, seed: seed) else { return }
            #expect(driver.completions.count > 10 && driver.tornDown.count > 10, "seed \(seed) exercised little")
        }
    }
}
