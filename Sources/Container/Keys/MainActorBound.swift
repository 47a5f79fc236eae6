/// A value that is not `Sendable`, held so that only the main actor can read it: what a
/// main-actor service makes when its value has to stay on the main actor (a Core Data view
/// context, a view model that is not `Sendable`).
///
/// The box itself is `Sendable`, so a snapshot can hold it and any thread can pass it around;
/// ``value`` is read and written on the main actor only.
///
/// ```swift
/// ServiceSpec(mainActor: .viewContext) { _ in
///     MainActorBound(ViewContext())   // ViewContext is not Sendable
/// }
/// // later, on the main actor:
/// let context = try services[.viewContext].value
/// ```
///
/// The box may be released on any thread (when the last snapshot holding it goes); a value that
/// must be released on the main actor is released by its service's teardown, which runs there
/// (see <doc:LaunchTiers>).
public final class MainActorBound<Value>: Sendable {
    /// The value, on the main actor only.
    @MainActor public var value: Value

    /// Holds `value`; made on the main actor, where `value` lives.
    @MainActor public init(_ value: Value) { self.value = value }
}
