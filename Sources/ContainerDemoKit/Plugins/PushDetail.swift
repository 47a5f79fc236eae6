/// What one push notification shows: made per `push` scope instance by the `pushDetail`
/// provider, from the item the notification names.
public struct PushDetail: Sendable, Hashable, CustomStringConvertible {
    /// The item (the instance's `itemID` parameter).
    public let itemID: String
    /// The item's title, as stored in the `items` table.
    public let title: String

    /// Creates a detail.
    public init(itemID: String, title: String) {
        self.itemID = itemID
        self.title = title
    }

    /// `A-17: Your order has shipped`.
    public var description: String { "\(itemID): \(title)" }
}
