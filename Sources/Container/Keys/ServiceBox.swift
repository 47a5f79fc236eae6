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
    /// The service's slot in its graph.
    let slot: Int
    /// The generation that built this value (carried-over values keep their origin).
    let builtInGeneration: Int
    /// The attempt that built this value.
    let builtInAttempt: Int

    init(typeID: ObjectIdentifier, name: String, slot: Int, builtInGeneration: Int, builtInAttempt: Int) {
        self.builtInAttempt = builtInAttempt
        self.typeID = typeID
        self.name = name
        self.slot = slot
        self.builtInGeneration = builtInGeneration
    }

    /// The value as an existential, for diagnostics and generic code paths.
    var anyValue: any Sendable { preconditionFailure("AnyServiceBox is abstract") }

    /// The dynamic type of the stored value's static type.
    var valueType: any Sendable.Type { preconditionFailure("AnyServiceBox is abstract") }

    /// Runs the provider's teardown on the value, if it has one.
    func tearDown() async throws {}

    /// Whether a teardown exists for this value.
    var hasTearDown: Bool { false }
}

/// A box for one value of type `Value`.
@usableFromInline
// Sendable without a lock: `value` and `tearDownAction` are immutable `let`s of Sendable types.
final class ServiceBox<Value: Sendable>: AnyServiceBox, @unchecked Sendable {
    @usableFromInline let value: Value
    let tearDownAction: (@Sendable (Value) async throws -> Void)?

    init(
        _ value: Value, name: String, slot: Int, builtInGeneration: Int, builtInAttempt: Int,
        tearDown: (@Sendable (Value) async throws -> Void)?
    ) {
        self.value = value
        self.tearDownAction = tearDown
        super.init(
            typeID: ObjectIdentifier(Value.self), name: name, slot: slot, builtInGeneration: builtInGeneration,
            builtInAttempt: builtInAttempt)
    }

    override var anyValue: any Sendable { value }
    override var valueType: any Sendable.Type { Value.self }
    override var hasTearDown: Bool { tearDownAction != nil }
    override func tearDown() async throws { try await tearDownAction?(value) }
}
