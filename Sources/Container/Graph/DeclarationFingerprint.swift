/// A 128-bit digest of a node's declaration (name aside), computed once when the node is made,
/// so that ``ServiceGraph/changes(from:)`` compares two integers per service instead of every
/// field (DESIGN §11).
///
/// It covers exactly what makes two declarations the same: the provider's id and value type,
/// the options (values, secret keys, base directory and path roots), the dependencies' names in
/// order, the groups read (each group's members' positions among the dependencies), the
/// lifetime, whether the node is external (a scope part's app service), timeout, retry policy
/// and default failure classification. Not the name (services are matched by name) nor the
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
/// 2^-128, and without the key no input can be crafted to collide. Fingerprints are compared
/// within one process only (they differ from run to run).
struct DeclarationFingerprint: Hashable, Sendable {
    let first: UInt64
    let second: UInt64

    /// The fingerprint of a declaration.
    init(
        provider: AnyServiceProvider, dependencyNames: [String], options: ServiceOptions, timeout: Duration?,
        retry: RetryPolicy, defaultFailure: FailureKind?, lifetime: Lifetime, isExternal: Bool,
        groups: [String: [Int]]
    ) {
        // A field added to the node, its options or its retry policy must be added here too
        // (`GraphChangesTests.fingerprintCoversEveryField` lists the fields there are).
        var hasher = DeclarationHasher()
        hasher.combine(provider.id)
        hasher.combine(UInt64(UInt(bitPattern: provider.valueTypeID)))
        hasher.combine(UInt64(dependencyNames.count))
        for name in dependencyNames { hasher.combine(name) }
        hasher.combine(options)
        hasher.combine(timeout)
        hasher.combine(UInt64(bitPattern: Int64(retry.maxAttempts)))
        hasher.combine(retry.initialDelay)
        hasher.combine(double: retry.multiplier)
        hasher.combine(retry.maxDelay)
        switch defaultFailure {
        case nil: hasher.combine(0)
        case .transient?: hasher.combine(1)
        case .permanent?: hasher.combine(2)
        }
        hasher.combine(lifetime.scope)
        hasher.combine(isExternal ? 1 : 0)
        hasher.combine(UInt64(groups.count))
        if !groups.isEmpty {
            for (group, positions) in groups.sorted(by: { $0.key < $1.key }) {
                hasher.combine(group)
                hasher.combine(UInt64(positions.count))
                for position in positions { hasher.combine(UInt64(bitPattern: Int64(position))) }
            }
        }
        (first, second) = hasher.finalize()
    }
}

extension DeclarationHasher {
    /// Options in canonical form: each dictionary and set in key order.
    mutating func combine(_ options: ServiceOptions) {
        combine(UInt64(options.values.count))
        if !options.values.isEmpty {
            for (key, value) in options.values.sorted(by: { $0.key < $1.key }) {
                combine(key)
                combine(value)
            }
        }
        combine(UInt64(options.secretKeys.count))
        if !options.secretKeys.isEmpty {
            for key in options.secretKeys.sorted() { combine(key) }
        }
        combine(options.baseDirectory)
        combine(UInt64(options.pathRoots.count))
        if !options.pathRoots.isEmpty {
            for (root, path) in options.pathRoots.sorted(by: { $0.key < $1.key }) {
                combine(root)
                combine(path)
            }
        }
    }

    /// A value, after a tag naming its case (so `1` and `1.0`, `[]` and `{}` differ, as with `==`).
    mutating func combine(_ value: OptionValue) {
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

    /// `0` for `nil`, else `1` and the string.
    mutating func combine(_ text: String?) {
        guard let text else { return combine(0) }
        combine(1)
        combine(text)
    }

    /// `0` for `nil`, else `1` and the duration.
    mutating func combine(_ duration: Duration?) {
        guard let duration else { return combine(0) }
        combine(1)
        combine(duration)
    }

    mutating func combine(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        combine(UInt64(bitPattern: seconds))
        combine(UInt64(bitPattern: attoseconds))
    }

    /// The bits of `number`, `-0.0` as `0.0` (they are `==`).
    mutating func combine(double number: Double) {
        combine(number == 0 ? 0 : number.bitPattern)
    }
}
