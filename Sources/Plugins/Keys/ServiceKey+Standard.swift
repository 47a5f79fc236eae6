public import Container

extension ServiceKey where Value == AppConfiguration {
    /// The `configuration` service (provider `configuration`).
    public static let configuration = ServiceKey("configuration")
}

extension ServiceKey where Value == Database {
    /// The `database` service (provider `sqlite`).
    public static let database = ServiceKey("database")
}

extension ServiceKey where Value == Session {
    /// The `session` service (provider `session`).
    public static let session = ServiceKey("session")
}

extension ServiceKey where Value == SceneRouter {
    /// The `sceneRouter` service of a `scene` scope instance (provider `sceneRouter`).
    public static let sceneRouter = ServiceKey("sceneRouter")
}

extension ServiceKey where Value == PushDetail {
    /// The `pushDetail` service of a `push` scope instance (provider `pushDetail`).
    public static let pushDetail = ServiceKey("pushDetail")
}
