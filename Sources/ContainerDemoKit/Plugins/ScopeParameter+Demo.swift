public import Container

extension ScopeParameters.Key where Value == String {
    /// The window of a `scene` scope instance (read by the `sceneRouter` provider).
    public static let windowID = Self("windowID")
    /// The item a push notification is about (read by the `pushDetail` provider).
    public static let itemID = Self("itemID")
}
