import ContainerTesting
import TestSupport
import Testing

@testable import Container

/// The scope instances open on a coordinator and their leases, as a value driven with string
/// children (STYLE rule 12).
@Suite("Child book as a value")
struct ChildBookTests {
    typealias Book = ChildBook<String>

    static func box(_ name: String) -> AnyServiceBox {
        ServiceBox(0, name: name, builtIn: BuildAttempt(generation: 1, attempt: 1), tearDown: nil)
    }

    /// Opens `label` in scope `s`, its child named `child<id>`; returns its id.
    @discardableResult
    static func open(_ book: inout Book, _ label: String, scope: String = "s") -> Int {
        book.open(label: label, scope: scope) { "child\($0)" }?.id ?? 0
    }

    static func lease(_ book: Book, of id: Int) -> Set<ObjectIdentifier>? { book.entry(id).map { Set($0.lease) } }

    static func ids(_ boxes: AnyServiceBox...) -> Set<ObjectIdentifier> { Set(boxes.map(ObjectIdentifier.init)) }

    static func expectValid(_ book: Book, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(book.invariantViolations().isEmpty, "\(book.invariantViolations())", sourceLocation: sourceLocation)
    }

    @Test("An empty book has no children and leases nothing")
    func empty() {
        let book = Book()
        let a = Self.box("a")
        #expect(book.isEmpty && book.count == 0 && book.all.isEmpty && book.labels.isEmpty)
        #expect(book.entry(1) == nil && !book.contains(label: "x#1"))
        #expect(!book.isLeased(a) && book.holders(of: [a]).isEmpty)
        Self.expectValid(book)
    }

    @Test("Children get ids in the order they open; the child is made with its id; labels find them")
    func open() throws {
        var book = Book()
        var madeWith: [Int] = []
        let first = try #require(
            book.open(label: "push#1", scope: "push") { id in
                madeWith.append(id)
                return "first"
            })
        #expect(first.id == 1 && first.child == "first" && madeWith == [1])
        let second = Self.open(&book, "feed#1", scope: "feed")
        let third = Self.open(&book, "push#2", scope: "push")
        #expect([second, third] == [2, 3])
        #expect(book.count == 3 && !book.isEmpty)
        #expect(book.all.map(\.id) == [1, 2, 3] && book.labels == ["push#1", "feed#1", "push#2"])
        let entry = book.entry(2)
        #expect(entry?.label == "feed#1" && entry?.scope == "feed" && entry?.child == "child2")
        #expect(entry?.state == .open && entry?.lease.isEmpty == true)
        #expect(book.contains(label: "push#2") && !book.contains(label: "push#3"))
        #expect(!book.contains(label: "push"), "a scope's name is not a label")
        Self.expectValid(book)
    }

    @Test("Ids are never reused; a label can open again once its child is removed, with a new id")
    func idsAfterRemove() {
        var book = Book()
        for label in ["a#1", "b#1", "c#1"] { Self.open(&book, label) }
        book.remove(2)
        #expect(book.all.map(\.id) == [1, 3] && book.labels == ["a#1", "c#1"])
        #expect(!book.contains(label: "b#1") && book.entry(2) == nil)
        #expect(Self.open(&book, "b#1") == 4, "not 2")
        #expect(book.labels == ["a#1", "c#1", "b#1"], "in opening order, the reopened label last")
        book.remove(1)
        book.remove(1)  // removed already: nothing happens
        book.remove(99)  // never opened
        #expect(book.all.map(\.id) == [3, 4] && book.count == 2)
        Self.expectValid(book)
    }

    @Test("markClosing marks a child closing; a closing child is still open to its label and keeps its lease")
    func markClosing() {
        var book = Book()
        let a = Self.box("a")
        let one = Self.open(&book, "s#1")
        let two = Self.open(&book, "s#2")
        book.lease([a], to: one)
        book.markClosing(one)
        #expect(book.entry(one)?.state == .closing && book.entry(two)?.state == .open)
        #expect(!book.isOpen(one) && book.isOpen(two))
        #expect(book.contains(label: "s#1") && book.count == 2, "closing is not closed")
        #expect(book.isLeased(a) && book.holders(of: [a]) == [one], "the lease ends only with a release or removal")
        book.markClosing(99)
        #expect(book.entry(99) == nil && book.count == 2, "an unknown child is not created by markClosing")
        Self.expectValid(book)
    }

    @Test("Leases: a value is leased while any child holds it; holders in opening order; each lease released once")
    func leases() {
        var book = Book()
        let (a, b, c, d) = (Self.box("a"), Self.box("b"), Self.box("c"), Self.box("d"))
        let one = Self.open(&book, "s#1")
        let two = Self.open(&book, "s#2")
        book.lease([b, c], to: two)
        book.lease([a, b], to: one)
        #expect(book.isLeased(a) && book.isLeased(b) && book.isLeased(c) && !book.isLeased(d))
        #expect(book.holders(of: [b]) == [1, 2] && book.holders(of: [c, a]) == [1, 2])
        #expect(book.holders(of: [c]) == [2] && book.holders(of: [d]).isEmpty && book.holders(of: []).isEmpty)
        #expect(Self.lease(book, of: one) == Self.ids(a, b) && Self.lease(book, of: two) == Self.ids(b, c))
        Self.expectValid(book)

        book.lease([a], to: one)  // a second request of child 1 leases a again
        book.release([a], by: one)
        #expect(book.isLeased(a), "each lease is handed back on its own: one release leaves the other")
        book.release([a], by: one)
        #expect(!book.isLeased(a), "the second release ends it")
        book.release([b], by: one)
        #expect(book.isLeased(b) && book.holders(of: [b]) == [2], "child 2 still holds b")
        book.release([b, d], by: one)  // not held by child 1 (any more): nothing happens
        book.release([c], by: 99)  // no such child
        #expect(book.holders(of: [b, c]) == [2])
        book.release([b, c], by: two)
        #expect(!book.isLeased(b) && !book.isLeased(c) && book.holders(of: [a, b, c, d]).isEmpty)
        #expect(Self.lease(book, of: one)?.isEmpty == true && Self.lease(book, of: two)?.isEmpty == true)
        Self.expectValid(book)
    }

    @Test("A lease to a child that is not open is ignored")
    func leaseToUnknownChild() {
        var book = Book()
        let a = Self.box("a")
        book.lease([a], to: 1)
        #expect(!book.isLeased(a) && book.isEmpty)
        let one = Self.open(&book, "s#1")
        book.remove(one)
        book.lease([a], to: one)
        #expect(!book.isLeased(a) && book.holders(of: [a]).isEmpty, "removed children lease nothing")
        Self.expectValid(book)
    }

    @Test("remove releases whatever the child still leased, and only that")
    func removeReleases() {
        var book = Book()
        let (a, b, c) = (Self.box("a"), Self.box("b"), Self.box("c"))
        let one = Self.open(&book, "s#1")
        let two = Self.open(&book, "s#2")
        book.lease([a, b], to: one)
        book.lease([b, c], to: two)
        book.markClosing(one)
        book.remove(one)
        #expect(!book.isLeased(a), "only child 1 held a")
        #expect(book.isLeased(b) && book.holders(of: [a, b]) == [two], "child 2 still holds b")
        #expect(book.entry(one) == nil && !book.contains(label: "s#1") && book.labels == ["s#2"])
        Self.expectValid(book)
        book.remove(two)
        #expect(!book.isLeased(b) && !book.isLeased(c) && book.isEmpty)
        Self.expectValid(book)
    }

    @Test("Random opens, leases, releases, closings and removals agree with a model")
    func randomSequences() async throws {
        let steps = ThreadSanitizerHooks.acquire != nil ? 150 : 600
        for seed in UInt64(1)...10 {
            var driver = ChildBookDriver(seed: seed)
            guard try await drive(&driver, steps: steps, seed: seed) else { return }
            #expect(driver.leases > steps / 10 && driver.removals > steps / 20, "seed \(seed) exercised little")
        }
    }
}

/// Drives a ``ChildBook`` with random events against a model: the open children by label and
/// by id, with their state and the values each leases.
struct ChildBookDriver: SeededDriver {
    typealias Book = ChildBook<String>

    struct Child {
        let label: String
        let scope: String
        var state: Book.State = .open
        /// How many leases of each value it holds (each lease is released on its own).
        var leased: [ObjectIdentifier: Int] = [:]
    }

    static let labels = (1...6).map { "s#\($0)" } + (1...3).map { "t#\($0)" }

    var random: SplitMix64
    var book = Book()
    /// The model.
    var idsByLabel: [String: Int] = [:]
    var children: [Int: Child] = [:]
    var nextID = 1
    /// The values children lease, held so that no identifier is reused.
    let boxes: [AnyServiceBox]
    var leases = 0
    var removals = 0
    var violations: [String] = []
    var history: [String] = []

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
        boxes = (0..<8).map {
            ServiceBox(0, name: "v\($0)", builtIn: BuildAttempt(generation: 1, attempt: 1), tearDown: nil)
        }
    }

    /// An id: mostly an open child's, sometimes one removed or never opened.
    mutating func id() -> Int {
        if !children.isEmpty && Int.random(in: 0..<5, using: &random) != 0 {
            return children.keys.sorted().randomElement(using: &random)!
        }
        return Int.random(in: 1...(nextID + 1), using: &random)
    }

    mutating func someBoxes() -> [AnyServiceBox] {
        (0..<Int.random(in: 0...3, using: &random)).map { _ in boxes.randomElement(using: &random)! }
    }

    mutating func step() {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<20: open()
        case 20..<50:
            let (id, leased) = (id(), someBoxes())
            history.append("lease \(leased.map(\.name)) to \(id)")
            book.lease(leased, to: id)
            for box in leased { children[id]?.leased[ObjectIdentifier(box), default: 0] += 1 }
            leases += 1
        case 50..<70:
            let (id, released) = (id(), someBoxes())
            history.append("release \(released.map(\.name)) by \(id)")
            book.release(released, by: id)
            for box in released {
                let key = ObjectIdentifier(box)
                guard let count = children[id]?.leased[key] else { continue }
                children[id]?.leased[key] = count > 1 ? count - 1 : nil
            }
        case 70..<80:
            let id = id()
            history.append("markClosing \(id)")
            book.markClosing(id)
            children[id]?.state = .closing
        default:
            let id = id()
            history.append("remove \(id)")
            book.remove(id)
            if let child = children.removeValue(forKey: id) {
                idsByLabel[child.label] = nil
                removals += 1
            }
        }
        check()
    }

    /// Opens a label that is not open, in its scope (`s` or `t`).
    mutating func open() {
        let free = Self.labels.filter { idsByLabel[$0] == nil }
        guard let label = free.randomElement(using: &random) else { return }
        let scope = String(label.prefix(1))
        history.append("open \(label)")
        var madeWith: Int?
        guard
            let opened = book.open(
                label: label, scope: scope,
                make: { id in
                    madeWith = id
                    return "child\(id)"
                })
        else {
            violations.append("opening \(label), not open, was refused")
            return
        }
        if opened.id != nextID || madeWith != nextID || opened.child != "child\(nextID)" {
            violations.append("opened \(label) as \(opened) (made with \(madeWith as Int?)), model id \(nextID)")
        }
        idsByLabel[label] = nextID
        children[nextID] = Child(label: label, scope: scope)
        nextID += 1
    }

    /// Removes every child left: then nothing is leased.
    mutating func finish() {
        for id in children.keys.sorted() {
            book.remove(id)
            children[id] = nil
        }
        idsByLabel = [:]
        check()
        if boxes.contains(where: book.isLeased) { violations.append("a value is leased with no child open") }
    }

    mutating func check() {
        violations += book.invariantViolations()
        let ids = children.keys.sorted()
        let all = book.all
        if all.map(\.id) != ids || book.count != ids.count || book.isEmpty != ids.isEmpty {
            return violations.append("children \(all.map(\.id)), model \(ids)")
        }
        if book.labels != ids.map({ children[$0]!.label }) { violations.append("labels \(book.labels)") }
        for label in Self.labels where book.contains(label: label) != (idsByLabel[label] != nil) {
            violations.append("contains(label: \(label)) disagrees")
        }
        // The model's holders of each value, in opening order.
        var holders: [ObjectIdentifier: [Int]] = [:]
        for entry in all {
            let child = children[entry.id]!
            if entry.label != child.label || entry.scope != child.scope || entry.child != "child\(entry.id)"
                || entry.state != child.state
                || Dictionary(entry.lease.map { ($0, 1) }, uniquingKeysWith: +) != child.leased
            {
                violations.append("child \(entry.id) is \(entry), model \(child)")
            }
            if book.entry(entry.id)?.label != child.label { violations.append("entry(\(entry.id)) disagrees") }
            for key in child.leased.keys { holders[key, default: []].append(entry.id) }
        }
        for box in boxes {
            let expected = holders[ObjectIdentifier(box)] ?? []
            if book.isLeased(box) != !expected.isEmpty { violations.append("isLeased(\(box.name)) disagrees") }
            let actual = book.holders(of: [box])
            if actual != expected { violations.append("holders of \(box.name) \(actual), model \(expected)") }
        }
        let some = boxes.filter { _ in Bool.random(using: &random) }
        let held = Set(some.flatMap { holders[ObjectIdentifier($0)] ?? [] }).sorted()
        if book.holders(of: some) != held { violations.append("holders of \(some.map(\.name)) disagree") }
    }
}
