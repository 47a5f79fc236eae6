public import Container
import Plugins

/// The demo's `pushDetail` provider, for a service of the `push` scope: loads the item a push
/// notification names (the instance's `itemID` parameter) from the database's `items` table.
///
/// The seed-002 story done right: the notification's data is a parameter of its own scope
/// instance, built only on top of a ready app snapshot; a missing `itemID` or an unknown item
/// fails the node permanently with a message that names it, never a fallback to a reserved id.
///
/// Reads `database` (declared in ``requirements``). The `items` table (`id`, `title`) and its
/// demo rows are created by ``DemoSchema/migrations`` and by `Configs/app.json`.
public struct PushDetailProvider: ServiceProvider {
    /// `pushDetail`.
    public let id = "pushDetail"

    /// Creates the provider.
    public init() {}

    /// `database`.
    public var requirements: [AnyServiceKey] { [ServiceKey.database.erased] }

    /// Refuses any option but a `description` (the provider reads none): a typo is never ignored.
    public func validate(options: ServiceOptions) throws {
        try options.refuseUnknownKeys(["description"], provider: id)
    }

    /// Loads the item; the run's cancellation (its timeout) ends the query.
    public func make(_ context: ProviderContext) async throws -> PushDetail {
        let itemID = try context.parameter(.itemID)
        let database = try context[.database]
        let rows = try await database.withCancellation { database in
            try database.query("SELECT title FROM items WHERE id = ?", [.text(itemID)])
        }
        guard let title = rows.first?["title"]?.string else { throw UnknownItem(itemID: itemID) }
        return PushDetail(itemID: itemID, title: title)
    }

    /// A push named an item the database does not have: permanent (opening the instance again
    /// asks for the same item).
    struct UnknownItem: ClassifiedError, CustomStringConvertible {
        let itemID: String
        var failureKind: FailureKind { .permanent }
        var description: String {
            "no item '\(itemID)' in the items table; the push notification names an item this database does not have"
        }
    }
}
