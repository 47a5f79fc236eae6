public import Container

extension ServiceKey where Value == SceneRouter {
    /// The `sceneRouter` service of a `scene` scope instance (provider `sceneRouter`).
    public static let sceneRouter = ServiceKey("sceneRouter")
}

extension ServiceKey where Value == PushDetail {
    /// The `pushDetail` service of a `push` scope instance (provider `pushDetail`).
    public static let pushDetail = ServiceKey("pushDetail")
}
