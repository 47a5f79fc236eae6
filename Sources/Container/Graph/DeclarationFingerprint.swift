/// A 128-bit digest of a node's declaration (name aside), computed once when the node is made,
/// so that ``ServiceGraph/changes(from:)`` compares two integers per service instead of every
/// field (see <doc:Reload>).
///
/// It covers exactly what makes two declarations the same: the provider's id and value type,
/// the options (values, secret keys, base directory and path roots), the dependencies' names in
/// order, the groups read (each group's members' positions among the dependencies), the
/// lifetime, whether the node is external (a scope part's app service) or optional, timeout,
/// retry policy and default failure classification. Not the name (services are matched by name) nor the
/// location in the config file (moving a declaration changes nothing).
///
/// The digest is SipHash-1-3 with a 128-bit output (`DeclarationHasher`), keyed with random
/// bits drawn once per process, over a canonical encoding of those fields: every string and
/// list prefixed by its length, every optional and option value by a tag, the entries of
/// dictionaries and sets in key order (so the order options were written in does not
/// matter), `-0.0` as `0.0`. Equal declarations therefore have equal fingerprints, with one
/// exception on the safe side: strings are encoded as their UTF-8 bytes, so two canonically
/// equivalent but differently encoded strings (`"é"` precomposed or not), which Swift's `==`
/// calls equal, make a change. Two different declarations collide with a probability of about
/// 2^-128 (SipHash taken as a keyed pseudorandom function), and without the key no input can be
/// crafted to collide. Fingerprints are compared
/// within one process only (they differ from run to run).
struct DeclarationFingerprint: Hashable, Sendable {
    let first: UInt64
    let second: UInt64

    private init(first: UInt64, second: UInt64) {
        self.first = first
        self.second = second
    }

    /// The fingerprint of a declaration (its name, its provider's id and value type, and the
    /// node's fields). The name is in it so that ``ServiceGraph/changes(from:)`` finds two graphs
    /// with the same names in the same slots by comparing fingerprints alone.
    ///
    /// A static function, not an initializer: a function borrows its arguments, an initializer
    /// takes them owned, which made the caller copy (retain) every field of every node.
    static func of(
        name: String, providerID: String, valueType: ObjectIdentifier, dependencyNames: [String],
        options: ServiceOptions,
        timeout: Duration?, retry: RetryPolicy, defaultFailure: FailureKind?, lifetime: ServiceSpec.Lifetime,
        isExternal: Bool, isOptional: Bool, groups: [String: [Int]]
    ) -> DeclarationFingerprint {
        // A field added to the node, its options or its retry policy must be added here too
        // (`GraphChangesTests.fingerprintCoversEveryField` lists the fields there are).
        var hasher = DeclarationHasher()
        hasher.combine(name)
        hasher.combine(providerID)
        hasher.combine(UInt64(UInt(bitPattern: valueType)))
        hasher.combine(UInt64(dependencyNames.count))
        for name in dependencyNames { hasher.combine(name) }
        hasher.combine(options)
        // The small fields in one word (fewer rounds): the failure kind, whether the node is
        // external or optional, and whether a timeout and a scope follow. Optional counts: its
        // readers built while it was absent must be built again once they require it.
        let failure: UInt64 =
            switch defaultFailure {
            case nil: 0
            case .transient?: 1
            case .permanent?: 2
            }
        hasher.combine(
            failure | (isExternal ? 4 : 0) | (timeout != nil ? 8 : 0) | (lifetime.scope != nil ? 16 : 0)
                | (isOptional ? 32 : 0))
        if let timeout { hasher.combine(timeout) }
        if let scope = lifetime.scope { hasher.combine(scope) }
        hasher.combine(UInt64(bitPattern: Int64(retry.maxAttempts)))
        hasher.combine(retry.initialDelay)
        hasher.combine(double: retry.multiplier)
        hasher.combine(retry.maxDelay)
        hasher.combine(UInt64(groups.count))
        if !groups.isEmpty {
            for (group, positions) in groups.sorted(by: { $0.key < $1.key }) {
                hasher.combine(group)
                hasher.combine(UInt64(positions.count))
                for position in positions { hasher.combine(UInt64(bitPattern: Int64(position))) }
            }
        }
        let (first, second) = hasher.finalize()
        return DeclarationFingerprint(first: first, second: second)
    }
}

extension DeclarationHasher {
    /// Options in canonical form: a word saying which parts are there (none, most often), then
    /// each one present, dictionaries and sets in key order.
    mutating func combine(_ options: ServiceOptions) {
        // Only the path roots a value names (`"$data/app.sqlite"`): a root no option reads, or
        // its folder, changes nothing the service does.
        let roots = options.pathRoots.isEmpty ? [] : options.namedPathRoots()
        combine(
            (options.values.isEmpty ? 0 : 1) | (options.secretKeys.isEmpty ? 0 : 2)
                | (options.baseDirectory == nil ? 0 : 4) | (roots.isEmpty ? 0 : 8))
        if !options.values.isEmpty {
            combine(UInt64(options.values.count))
            for (key, value) in options.values.sorted(by: { $0.key < $1.key }) {
                combine(key)
                combine(value)
            }
        }
        if !options.secretKeys.isEmpty {
            combine(UInt64(options.secretKeys.count))
            for key in options.secretKeys.sorted() { combine(key) }
        }
        if let baseDirectory = options.baseDirectory { combine(baseDirectory) }
        if !roots.isEmpty {
            combine(UInt64(roots.count))
            for root in roots {
                combine(root)
                combine(options.pathRoots[root] ?? "")
            }
        }
    }

    /// A value, after a tag naming its case (so `1` and `1.0`, `[]` and `{}` differ, as with `==`).
    mutating func combine(_ value: ServiceOptions.Value) {
        switch value {
        case .null: combine(0)
        case .bool(let flag):
            combine(1)
            combine(flag ? 1 : 0)
        case .int(let number):
            combine(2)
            combine(UInt64(bitPattern: Int64(number)))
        case .double(let number):
            combine(3)
            combine(double: number)
        case .string(let text):
            combine(4)
            combine(text)
        case .array(let items):
            combine(5)
            combine(UInt64(items.count))
            for item in items { combine(item) }
        case .object(let fields):
            combine(6)
            combine(UInt64(fields.count))
            for (key, field) in fields.sorted(by: { $0.key < $1.key }) {
                combine(key)
                combine(field)
            }
        }
    }

    /// Its representation (a 128-bit count of attoseconds, which `==` compares), read as words:
    /// `components` would divide by 10^18.
    mutating func combine(_ duration: Duration) {
        withUnsafeBytes(of: duration) { raw in
            for offset in stride(from: 0, to: raw.count, by: 8) {
                combine(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            }
        }
    }

    /// The bits of `number`, `-0.0` as `0.0` (they are `==`).
    mutating func combine(double number: Double) {
        combine(number == 0 ? 0 : number.bitPattern)
    }
}
