extension ServiceSpec {
    /// Where a service's provider runs: on the build's pool of threads (the default) or on the main
    /// actor.
    ///
    /// A main-actor service is for a value that belongs to the main actor (a SwiftUI model, a
    /// router, a view controller's helper): the scheduler runs the ready main-actor nodes of a build
    /// one after another in one hop to the main actor, while the other nodes go on in parallel (see
    /// <doc:LaunchTiers>). Declared in code (``ServiceSpec/isolation``,
    /// ``ServiceSpec/init(mainActor:dependsOn:options:timeout:retry:defaultFailure:lifetime:group:start:priority:tearDown:fileID:line:make:)-(_,[String],_,_,_,_,_,_,_,_,_,_,_,_)``,
    /// ``ServiceProvider/isolation``) or in a config file (`"isolation": "main"`).
    public struct Isolation: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable { case nonisolated, main }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The provider runs on the build's threads, in parallel with the other nodes (the default).
        public static let nonisolated = Isolation(.nonisolated)
        /// The provider runs on the main actor, in a batch with the build's other main-actor nodes.
        public static let main = Isolation(.main)

        /// Every isolation, in the order a config's error message lists them.
        public static let all: [Isolation] = [.nonisolated, .main]

        /// The isolation a config file names (`"main"`, `"nonisolated"`), if any.
        public init?(name: String) {
            guard let base = Base(rawValue: name) else { return nil }
            self.init(base)
        }

        /// The name a config file uses: `main` or `nonisolated`.
        public var description: String { base.rawValue }
    }
}
