import ContainerTesting
import Testing

@testable import Container

/// The per-build storage that costs what the build's closure does, not what the graph does:
/// the members' places (a table that turns into an array) and the added values (a presence bit
/// per slot, only the added ones released). Each gives the answers of a plain array.
@Suite("Closure-sized build storage")
struct BuildStorageTests {
    /// Counts the boxes released, to check that a build's values release exactly the added ones.
    final class Counted: Sendable {
        let released: Locked<Int>
        init(_ released: Locked<Int>) { self.released = released }
        deinit { released.withLock { $0 += 1 } }
    }

    static func box(_ slot: Int, counting released: Locked<Int>? = nil) -> AnyServiceBox {
        if let released {
            return ServiceBox(
                Counted(released), name: "s\(slot)", builtIn: BuildAttempt(generation: 1, attempt: 1), tearDown: nil)
        }
        return ServiceBox(slot, name: "s\(slot)", builtIn: BuildAttempt(generation: 1, attempt: 1), tearDown: nil)
    }

    @Test("member places: the table and the array it turns into give each member's place, 0 elsewhere")
    func memberPlaces() {
        for (count, capacity) in [(3_000, 3), (3_000, 0), (3_000, 2_000), (4, 3), (0, 0), (100, 1)] {
            var places = MemberPlaces(count: count, capacity: capacity)
            var model = [Int](repeating: 0, count: count)
            // Spread slots and neighbours, enough to grow the table and then turn it dense.
            var order: [Int] = []
            for step in 0..<count { order.append((step &* 7_919) % count) }
            for (position, slot) in order.prefix(count / 2 + 1).enumerated() {
                places.insert(position + 1, at: slot)
                model[slot] = position + 1
                if position % 97 == 0 || position < 20 {
                    let wrong = (0..<count).filter { places[$0] != model[$0] }
                    #expect(wrong.isEmpty, "count \(count), \(position + 1) members: wrong: \(wrong.prefix(5))")
                }
            }
            let wrong = (0..<count).filter { places[$0] != model[$0] }
            #expect(wrong.isEmpty, "count \(count): slots placed wrong: \(wrong.prefix(5))")
        }
    }

    @Test("build records: members' records and waits by slot, in a sparse and a dense build")
    func recordsAndWaits() {
        for (count, capacity) in [(3_000, 2), (8, 8)] {
            var records = BuildRecords(count: count, capacity: capacity)
            let member = count - 1
            records.add(member, waiting: 2)
            records.add(5, waiting: 0)
            records.add(5, waiting: 9)  // a member already: unchanged
            #expect(records.count == 2 && records.slots == [member, 5])
            #expect(records[waiting: member] == 2 && records[waiting: 5] == 0 && records[waiting: 6] == 0)
            let arrivals = [member, member, member, 6].map { records.dependencyArrived(for: $0) }
            #expect(arrivals == [false, true, false, false], "one of two, the last one, nothing more, not a member")
            records[5] = .init(status: .succeeded, runs: 1, startedAt: .zero, endedAt: .seconds(1))
            #expect(records[5].status == .succeeded && records[member].status == .pending)
            #expect(records.isRecorded(5) && !records.isRecorded(6) && records[6].status == .reused)
        }
    }

    @Test("build values: added values and the base's, each read back; exactly the added ones released")
    func buildValues() {
        for count in [1, 4, 64, 65, 3_000] {
            let released = Locked(0)
            var base = SlotValues()
            for slot in stride(from: 1, to: count, by: 5) { base[slot] = Self.box(slot) }
            var values: BuildValues? = BuildValues(base: base, count: count)
            var added: [Int: AnyServiceBox] = [:]
            for slot in stride(from: 0, to: count, by: 5) {
                let box = Self.box(slot, counting: released)
                values?.add(box, at: slot)
                added[slot] = box
            }
            let wrong = (0..<count).filter { slot in
                let expected = added[slot] ?? base[slot]
                return values?[slot].map(ObjectIdentifier.init) != expected.map(ObjectIdentifier.init)
            }
            #expect(wrong.isEmpty, "count \(count): slots read wrong: \(wrong.prefix(5))")
            let addedCount = added.count
            added = [:]
            #expect(released.withLock { $0 } == 0, "the build still holds its values")
            values = nil
            #expect(released.withLock { $0 } == addedCount, "count \(count): each added value released once")
        }
    }

    @Test("settled views: each keeps the nodes settled when it was made, however the build goes on")
    func settledViews() {
        let count = 3_000
        var records = BuildRecords(count: count, capacity: 2)
        let members = Array(stride(from: 7, to: count, by: 97))  // 31 members
        func settle(_ slot: Int, _ status: BuildRecords.Status) {
            records[slot].endedAt = .seconds(slot)  // a write that settles nothing
            records[slot] = .init(status: status, runs: 1, startedAt: .zero, endedAt: .seconds(slot))
        }
        // Two members when the first view is made: the log starts small and grows (8, 16, 32).
        records.add(members[0])
        records.add(members[1])
        settle(members[0], .succeeded)
        let first = records.settledView(valued: SlotSet(capacity: count))
        #expect(records.settledFailure == nil)
        var views: [(view: SettledRecords, settled: [Int])] = [(first, [members[0]])]
        for (index, slot) in members.enumerated().dropFirst() {
            records.add(slot)
            if index == 5 {
                settle(slot, .failed)
                let failure = NodeOutcome.Failure(kind: .transient, message: "try again", error: TestError("try again"))
                records.failed(slot, failure)
                #expect(records.settledFailure == .transient)
            } else {
                settle(slot, .succeeded)
            }
            views.append((records.settledView(valued: SlotSet(capacity: count)), Array(members[...index])))
        }
        records.failed(members[5], NodeOutcome.Failure(kind: .permanent, message: "gone", error: TestError("gone")))
        #expect(records.settledFailure == .permanent, "a permanent failure outranks a transient one")
        #expect(views.last!.view.log !== first.log, "the log grew into a new buffer")
        for (view, settled) in views {
            let read = view.materialized(nodeCount: count)
            let recorded = (0..<count).filter { read.isRecorded($0) }
            #expect(recorded == settled.sorted(), "a view reads exactly the nodes settled before it")
            #expect(settled.allSatisfy { read[$0].endedAt == .seconds($0) && read[$0].status != .pending })
        }
        let failedRead = views.last!.view.materialized(nodeCount: count)
        #expect(failedRead.failedSlots(count: count) == [members[5]])
        guard case .failed(let failure) = failedRead.report(of: members[5], name: "f").outcome else {
            Issue.record("the failed node reads as \(failedRead[members[5]].status)")
            return
        }
        #expect(failure.kind == .transient, "a view keeps the details it was made with")
        var fresh = BuildRecords(count: count, recording: [1, 2])
        #expect(fresh.settledView(valued: SlotSet(capacity: count)).count == 0, "nothing settled: an empty view")
    }

    @Test("the failure of the settled members: none, transient for a failure, a skip or a cancellation, then permanent")
    func settledFailure() {
        let transient = NodeOutcome.Failure(kind: .transient, message: "later", error: TestError("later"))
        let permanent = NodeOutcome.Failure(kind: .permanent, message: "never", error: TestError("never"))
        let settlings: [(String, (inout BuildRecords) -> Void)] = [
            ("skipped", { $0.skipped(1, because: ["a"]) }),
            (
                "cancelled while running",
                { $0[1] = .init(status: .cancelledWhileRunning, runs: 1, startedAt: .zero, endedAt: .zero) }
            ),
            (
                "cancelled before its start",
                { $0[1] = .init(status: .cancelledBeforeStart, runs: 0, startedAt: nil, endedAt: .zero) }
            ),
            (
                "failed",
                { records in
                    records[1] = .init(status: .failed, runs: 1, startedAt: .zero, endedAt: .zero)
                    records.failed(1, transient)
                }
            ),
        ]
        // Read from the records, and kept by the log once a view of the build in flight exists.
        for (name, settle) in settlings {
            for logged in [false, true] {
                var records = BuildRecords(count: 4, recording: [0, 1, 2])
                if logged { _ = records.settledView(valued: SlotSet(capacity: 4)) }
                records[0] = .init(status: .succeeded, runs: 1, startedAt: .zero, endedAt: .zero)
                #expect(records.settledFailure == nil, "\(name), logged: \(logged): a success fails nothing")
                settle(&records)
                #expect(records.settledFailure == .transient, "\(name), logged: \(logged)")
                records[2] = .init(status: .failed, runs: 1, startedAt: .zero, endedAt: .zero)
                records.failed(2, permanent)
                #expect(records.settledFailure == .permanent, "\(name), logged: \(logged), then a permanent failure")
            }
        }
        var records = BuildRecords(count: 4, recording: [0, 1])
        records[0] = .init(status: .failed, runs: 1, startedAt: .zero, endedAt: .zero)
        records.failed(0, permanent)
        records[1] = .init(status: .failed, runs: 1, startedAt: .zero, endedAt: .zero)
        records.failed(1, transient)
        #expect(records.settledFailure == .permanent, "a transient failure after a permanent one changes nothing")
    }
}
