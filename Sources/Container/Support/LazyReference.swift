import Synchronization

/// An object made on first use, at most once, and kept until the holder goes: for state that
/// most holders never need (the observers of a scope instance), so that they pay a word for it.
///
/// Callers synchronize it themselves (the coordinator makes and reads it under its state lock):
/// the atomic only lets the holder be `Sendable` without a lock of its own.
struct LazyReference<Object: AnyObject & Sendable>: ~Copyable, Sendable {
    /// The object's address (retained once), 0 until it is made.
    private let address = Atomic<UInt>(0)

    /// The object, if made.
    var ifMade: Object? {
        let bits = address.load(ordering: .acquiring)
        return UnsafeRawPointer(bitPattern: bits).map { Unmanaged<Object>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The object, made by `make` if it was not made yet.
    func get(orMake make: () -> Object) -> Object {
        if let made = ifMade { return made }
        let made = Unmanaged.passRetained(make())
        let (exchanged, original) = address.compareExchange(
            expected: 0, desired: UInt(bitPattern: made.toOpaque()), successOrdering: .acquiringAndReleasing,
            failureOrdering: .acquiring)
        guard !exchanged, let other = UnsafeRawPointer(bitPattern: original) else { return made.takeUnretainedValue() }
        made.release()
        return Unmanaged<Object>.fromOpaque(other).takeUnretainedValue()
    }

    deinit {
        if let made = UnsafeRawPointer(bitPattern: address.load(ordering: .acquiring)) {
            Unmanaged<Object>.fromOpaque(made).release()
        }
    }
}
