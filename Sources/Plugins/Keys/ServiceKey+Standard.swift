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
