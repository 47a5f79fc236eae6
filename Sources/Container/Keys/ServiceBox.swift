import Synchronization

/// The one place where service values are type-erased: a reference box holding a value
/// together with the identity of its type and its teardown.
///
/// Every other part of the runtime handles values as boxes; only ``ServiceBox`` knows
/// the concrete type, and a lookup checks `typeID` before it downcasts.
@usableFromInline
// Sendable without a lock: every stored property is an immutable `let` of a Sendable type, and
// the one subclass adds only such `let`s (the class is not final, so the compiler cannot check it).
class AnyServiceBox: @unchecked Sendable {

    /// `ObjectIdentifier` of the stored value's static type.
    @usableFromInline let typeID: ObjectIdentifier
    /// The service this value was made for.
    let name: String
    /// The build attempt that made this value (carried-over values keep their origin).
    let builtIn: BuildAttempt
    /// When the value was made, process-wide. A provider starts only after its dependencies'
    /// values exist, so a value's dependencies always have smaller numbers: tearing values down
    /// by decreasing number is a reverse dependency order, across attempts, generations, reloads.
    var sequence: UInt64 { stamp & ~Self.mainActorBit }
    /// Whether a main-actor node made it: its teardown is called on the main actor.
    var madeOnMainActor: Bool { stamp & Self.mainActorBit != 0 }
    /// ``sequence``, and ``madeOnMainActor`` in the top bit (a counter never reaches it): a
    /// separate flag would grow every box by a word.
    private let stamp: UInt64
    private static let mainActorBit: UInt64 = 1 << 63

    private static let made = Atomic<UInt64>(0)

    init(typeID: ObjectIdentifier, name: String, builtIn: BuildAttempt, onMainActor: Bool = false) {
        self.typeID = typeID
        self.name = name
        self.builtIn = builtIn
        self.stamp = Self.made.add(1, ordering: .relaxed).newValue | (onMainActor ? Self.mainActorBit : 0)
    }

    /// The generation that made this value.
    var builtInGeneration: Int { builtIn.generation }

    /// The value as an existential, for diagnostics and generic code paths.
    var anyValue: any Sendable { preconditionFailure("AnyServiceBox is abstract") }

    /// The dynamic type of the stored value's static type.
    var valueType: any Sendable.Type { preconditionFailure("AnyServiceBox is abstract") }

    /// Runs the provider's teardown on the value, if it has one, on the caller's executor
    /// (unless the teardown is isolated itself).
    nonisolated(nonsending) func tearDown() async throws {}

    /// Whether a teardown exists for this value.
    var hasTearDown: Bool { false }
}

/// A box for one value of type `Value`.
@usableFromInline
// Sendable without a lock: `value` and `tearDownAction` are immutable `let`s of Sendable types.
final class ServiceBox<Value: Sendable>: AnyServiceBox, @unchecked Sendable {
    @usableFromInline let value: Value
    let tearDownAction: (nonisolated(nonsending) @Sendable (Value) async throws -> Void)?

    init(
        _ value: Value, name: String, builtIn: BuildAttempt, onMainActor: Bool = false,
        tearDown: (nonisolated(nonsending) @Sendable (Value) async throws -> Void)?
    ) {
        self.value = value
        self.tearDownAction = tearDown
        super.init(typeID: ObjectIdentifier(Value.self), name: name, builtIn: builtIn, onMainActor: onMainActor)
    }

    override var anyValue: any Sendable { value }
    override var valueType: any Sendable.Type { Value.self }
    override var hasTearDown: Bool { tearDownAction != nil }
    nonisolated(nonsending) override func tearDown() async throws { try await tearDownAction?(value) }
}
