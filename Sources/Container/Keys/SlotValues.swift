/// Values by slot of one graph, in chunks of ``chunkSize`` slots that copies share
/// (copy-on-write, chunk by chunk), and how many there are.
///
/// One structure holds the values a generation keeps, those an attempt made and a snapshot's:
/// a build that replaces a few values of a large graph copies the chunks it writes and shares
/// every other with the values it started from, and the generation it publishes shares them
/// with the one before (retaining a chunk, not each of its values). Indexed by slot rather than
/// hashed: a dictionary hashes every slot of every build and allocates its table.
@usableFromInline
struct SlotValues: Sendable {
    /// A chunk: optional values of up to ``chunkSize`` slots (shorter when its last slots have none).
    @usableFromInline typealias Chunk = ContiguousArray<AnyServiceBox?>

    /// Slots per chunk: a partial build copies one chunk per slot it writes (64 references),
    /// and a copy of the whole structure retains one chunk per 64 slots.
    @usableFromInline static var chunkShift: Int { 6 }
    @usableFromInline static var chunkSize: Int { 1 << chunkShift }

    /// Chunk 0, inline: a graph of up to ``chunkSize`` services (every scope part) allocates
    /// one array, as a plain array of values would.
    @usableFromInline private(set) var first: Chunk
    /// Chunks 1 and later, by `(slot >> chunkShift) - 1`; fewer than the graph needs when the
    /// last slots have none.
    @usableFromInline private(set) var rest: ContiguousArray<Chunk>
    /// How many slots have a value.
    private(set) var count: Int

    /// No values.
    init() {
        first = []
        rest = []
        count = 0
    }

    /// No values yet, with room for the first `slots` slots' values (up to a chunk's worth), so
    /// that filling a small graph's values allocates their array once and no larger than needed.
    init(reservingSlots slots: Int) {
        self.init()
        first.reserveCapacity(min(max(slots, 0), Self.chunkSize))
    }

    /// The values of `boxes`, by slot.
    init(_ boxes: some Sequence<AnyServiceBox?>) {
        self.init()
        for (slot, box) in boxes.enumerated() where box != nil { self[slot] = box }
    }

    /// The values of a dictionary by slot.
    init(_ dictionary: [Int: AnyServiceBox]) {
        self.init()
        for (slot, box) in dictionary { self[slot] = box }
    }

    /// Whether no slot has a value.
    var isEmpty: Bool { count == 0 }

    /// The value of `slot`, if it has one; `nil` for any slot beyond the last value.
    @inlinable @inline(__always)
    func value(at slot: Int) -> AnyServiceBox? {
        if slot < Self.chunkSize {
            return slot >= 0 && slot < first.count ? first[slot] : nil
        }
        let index = (slot &>> Self.chunkShift) &- 1
        guard index < rest.count else { return nil }
        let offset = slot & (Self.chunkSize - 1)
        return offset < rest[index].count ? rest[index][offset] : nil
    }

    /// How many chunks there are (the last ones may be empty).
    var chunkCount: Int { rest.isEmpty && first.isEmpty ? 0 : rest.count + 1 }

    /// Chunk `index` (`index < chunkCount`).
    func chunk(_ index: Int) -> Chunk { index == 0 ? first : rest[index - 1] }

    /// Runs `body` on chunk `index`, in place, creating the empty chunks up to it first.
    private mutating func withChunk<Result>(_ index: Int, _ body: (inout Chunk) -> Result) -> Result {
        if index == 0 { return body(&first) }
        if index > rest.count { rest.append(contentsOf: repeatElement(Chunk(), count: index - rest.count)) }
        return body(&rest[index - 1])
    }

    /// Whether `slot` has a value (without retaining it).
    func hasValue(_ slot: Int) -> Bool { value(at: slot) != nil }

    /// One bit per slot of a graph of `capacity` slots (words as ``SlotSet`` has them), set
    /// for the slots below `count` that have a value: a chunk is one word, read in one pass.
    func presence(below count: Int, capacity: Int) -> [UInt64] {
        var words = [UInt64](repeating: 0, count: (capacity + 63) >> 6)
        for index in 0..<min(chunkCount, words.count) {
            let base = index << Self.chunkShift
            guard base < count else { break }
            words[index] = chunk(index).withUnsafeBufferPointer { buffer in
                var word: UInt64 = 0
                for offset in 0..<min(buffer.count, count - base) where buffer[offset] != nil {
                    word |= 1 << UInt64(offset)
                }
                return word
            }
        }
        return words
    }

    /// The value of `slot`, if it has one.
    subscript(slot: Int) -> AnyServiceBox? {
        get { value(at: slot) }
        set {
            let index = slot >> Self.chunkShift
            if newValue == nil && !hasValue(slot) { return }
            let offset = slot & (Self.chunkSize - 1)
            let hadValue = withChunk(index) { chunk in
                if offset == chunk.count {
                    // The next slot of the chunk (a build fills its values in order): appended.
                    chunk.append(newValue)
                    return false
                }
                if offset > chunk.count {
                    // Only as long as it needs to be: a scope instance's few services take a few words.
                    chunk.append(contentsOf: repeatElement(nil, count: offset + 1 - chunk.count))
                }
                let hadValue = chunk[offset] != nil
                // In place: copies the chunk (and the chunk list) only when another structure shares it.
                chunk[offset] = newValue
                return hadValue
            }
            count += (newValue == nil ? 0 : 1) - (hadValue ? 1 : 0)
        }
    }

    /// Removes and returns the value of `slot`, if it has one.
    mutating func removeValue(forKey slot: Int) -> AnyServiceBox? {
        defer { self[slot] = nil }
        return self[slot]
    }

    /// Calls `body` with each slot that has a value and its value, in slot order (the chunks
    /// without values are skipped whole).
    func forEach(_ body: (_ slot: Int, _ box: AnyServiceBox) throws -> Void) rethrows {
        for index in 0..<chunkCount {
            let chunk = chunk(index)
            let base = index << Self.chunkShift
            for offset in chunk.indices { if let box = chunk[offset] { try body(base + offset, box) } }
        }
    }

    /// The slots that have a value, ascending.
    var keys: [Int] {
        var keys: [Int] = []
        keys.reserveCapacity(count)
        forEachSlot { keys.append($0) }
        return keys
    }

    /// Calls `body` with each slot that has a value, in slot order, without retaining the values.
    func forEachSlot(_ body: (_ slot: Int) throws -> Void) rethrows {
        for index in 0..<chunkCount {
            let chunk = chunk(index)
            let base = index << Self.chunkShift
            for offset in chunk.indices where chunk[offset] != nil { try body(base + offset) }
        }
    }

    /// Calls `body` with each slot below `end` that has no value, in slot order.
    func forEachMissingSlot(below end: Int, _ body: (_ slot: Int) throws -> Void) rethrows {
        for index in 0..<((end + Self.chunkSize - 1) >> Self.chunkShift) {
            let base = index << Self.chunkShift
            let upper = min(Self.chunkSize, end - base)
            let chunk = index < chunkCount ? chunk(index) : Chunk()
            let stored = min(upper, chunk.count)
            for offset in 0..<stored where chunk[offset] == nil { try body(base + offset) }
            for offset in stored..<upper { try body(base + offset) }
        }
    }

    /// The values, in slot order.
    var values: [AnyServiceBox] {
        var values: [AnyServiceBox] = []
        values.reserveCapacity(count)
        forEach { _, box in values.append(box) }
        return values
    }

    /// Each slot with its value, in slot order.
    var slotsAndValues: [(slot: Int, box: AnyServiceBox)] {
        var pairs: [(slot: Int, box: AnyServiceBox)] = []
        pairs.reserveCapacity(count)
        forEach { slot, box in pairs.append((slot, box)) }
        return pairs
    }

    /// These values with `other`'s written over them. A chunk that only one side has values in
    /// stays shared; a chunk both have is merged into a new one in a single pass.
    func merging(_ other: SlotValues) -> SlotValues {
        if other.isEmpty { return self }
        if isEmpty { return other }
        var merged = SlotValues()
        var overlap = 0
        merged.first = Self.merge(first, other.first, overlap: &overlap)
        let restCount = Swift.max(rest.count, other.rest.count)
        if restCount > 0 {
            merged.rest.reserveCapacity(restCount)
            for index in 0..<restCount {
                merged.rest.append(
                    Self.merge(
                        index < rest.count ? rest[index] : Chunk(),
                        index < other.rest.count ? other.rest[index] : Chunk(), overlap: &overlap))
            }
        }
        merged.count = count + other.count - overlap
        return merged
    }

    /// `base` with `top`'s values written over it; `overlap` counts the slots both have a value in.
    /// (One copy of `base`, made by the first write: the standard library's copy path is
    /// specialized, while creating an array of a given capacity looks its metadata up at run time.)
    private static func merge(_ base: Chunk, _ top: Chunk, overlap: inout Int) -> Chunk {
        if top.isEmpty { return base }
        if base.isEmpty { return top }
        var merged = base
        if top.count > merged.count { merged.append(contentsOf: repeatElement(nil, count: top.count - merged.count)) }
        for offset in top.indices {
            guard let box = top[offset] else { continue }
            if merged[offset] != nil { overlap += 1 }
            merged[offset] = box
        }
        return merged
    }

    /// When `carried` (by slot: the slot whose value moves there, or -1) moves no value to
    /// another slot: removes and returns, in slot order, the values it does not carry, and
    /// keeps the others where they are, their chunks shared (a reload that changed a few
    /// services of a large graph). `nil`, and nothing changed, when some value would move.
    mutating func removeAllInPlace(except carried: [Int]) -> [AnyServiceBox]? {
        let covered = chunkCount << Self.chunkShift
        guard (carried.count..<max(covered, carried.count)).allSatisfy({ !hasValue($0) }),
            carried.indices.allSatisfy({ carried[$0] < 0 || carried[$0] == $0 })
        else { return nil }
        var removed: [AnyServiceBox] = []
        for slot in carried.indices where carried[slot] < 0 {
            if let box = removeValue(forKey: slot) { removed.append(box) }
        }
        return removed
    }

    /// Removes every value and returns them, in slot order.
    mutating func removeAll() -> [AnyServiceBox] {
        defer { self = SlotValues() }
        return values
    }
}
