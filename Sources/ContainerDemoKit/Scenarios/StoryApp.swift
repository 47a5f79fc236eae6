import Container
import ContainerTesting
import Synchronization

/// The built-in app the stories run: five services declared in code, four entry points,
/// and a ``StoryApp/Lab`` through which a story scripts failures, holds a build with a
/// gate, signs the user out, and counts provider runs and teardowns.
///
///     configuration ──▶ database ──▶ session ──▶ feed
///           │                  └────────────────▲
///           └──────▶ analytics
struct StoryApp: Sendable {
    // MARK: Values

    struct Settings: Sendable {
        let apiHost: String
        let schemaVersion: Int
    }

    struct Database: Sendable {
        let file: String
        let schemaVersion: Int
        let openedInGeneration: Int
    }

    struct Session: Sendable {
        let user: String?
        let token: String
    }

    struct Analytics: Sendable {
        let endpoint: String
    }

    struct Feed: Sendable {
        let owner: String?
        let items: Int
    }

    enum Keys {
        static let configuration = ServiceKey<Settings>("configuration")
        static let database = ServiceKey<Database>("database")
        static let session = ServiceKey<Session>("session")
        static let analytics = ServiceKey<Analytics>("analytics")
        static let feed = ServiceKey<Feed>("feed")
    }

    /// A failure a story injects; it says itself whether it is transient or permanent.
    struct InjectedFailure: ClassifiedError, Sendable, CustomStringConvertible {
        let failureKind: FailureKind
        let description: String
    }

    // MARK: The lab

    /// What a story controls and observes.
    final class Lab: Sendable {
        private struct State {
            var runs: [String: Int] = [:]
            var tornDown: [String] = []
            var sessionFailures: [FailureKind] = []
            var databaseCorrupt = false
            var signedIn = true
        }

        private let state = Locked(State())
        /// When set, the database provider waits for it: the story holds the build there.
        let databaseGate: Gate?

        init(sessionFailures: [FailureKind] = [], databaseCorrupt: Bool = false, databaseGate: Gate? = nil) {
            state.withLock {
                $0.sessionFailures = sessionFailures
                $0.databaseCorrupt = databaseCorrupt
            }
            self.databaseGate = databaseGate
        }

        /// Counts a provider run and returns its number (1 for the first).
        func ran(_ name: String) -> Int {
            state.withLock { state in
                state.runs[name, default: 0] += 1
                return state.runs[name, default: 0]
            }
        }

        /// How many times the provider of `name` ran.
        func runs(of name: String) -> Int { state.withLock { $0.runs[name, default: 0] } }

        /// Teardowns in the order they happened.
        var tornDown: [String] { state.withLock { $0.tornDown } }

        func noteTornDown(_ name: String) { state.withLock { $0.tornDown.append(name) } }

        /// The scripted failure of the session provider's next run, if any.
        func nextSessionFailure() -> FailureKind? {
            state.withLock { $0.sessionFailures.isEmpty ? nil : $0.sessionFailures.removeFirst() }
        }

        var databaseCorrupt: Bool { state.withLock { $0.databaseCorrupt } }

        /// The app deletes the corrupt database file: the next generation opens a fresh one.
        func repairDatabase() { state.withLock { $0.databaseCorrupt = false } }

        var signedIn: Bool { state.withLock { $0.signedIn } }

        /// The user signs out: the next session restored is anonymous.
        func signOut() { state.withLock { $0.signedIn = false } }
    }

    let lab: Lab
    let graph: ServiceGraph
    let entryPoints: [StoryEntryPoint]

    /// The app, with its scripted behaviour in `lab`; every value has a teardown that `lab` records.
    init(lab: Lab) throws(GraphError) {
        self.lab = lab
        let work: Duration = .milliseconds(2)
        let specs = [
            ServiceSpec(Keys.configuration, tearDown: { _ in lab.noteTornDown("configuration") }) { _ in
                _ = lab.ran("configuration")
                try await Task.sleep(for: work)
                return Settings(apiHost: "api.example.com", schemaVersion: 3)
            },
            ServiceSpec(Keys.database, dependsOn: ["configuration"], tearDown: { _ in lab.noteTornDown("database") }) {
                context in
                _ = lab.ran("database")
                let settings = try context[Keys.configuration]
                try await lab.databaseGate?.cancellableWait()
                try await Task.sleep(for: work * 2)
                if lab.databaseCorrupt {
                    throw InjectedFailure(
                        failureKind: .permanent, description: "app.sqlite is corrupt (checksum mismatch on page 7)")
                }
                return Database(
                    file: "app.sqlite", schemaVersion: settings.schemaVersion, openedInGeneration: context.generation)
            },
            ServiceSpec(Keys.session, dependsOn: ["database"], tearDown: { _ in lab.noteTornDown("session") }) {
                context in
                _ = lab.ran("session")
                _ = try context[Keys.database]
                try await Task.sleep(for: work)
                if let failure = lab.nextSessionFailure() {
                    throw InjectedFailure(failureKind: failure, description: "token refresh timed out (HTTP 503)")
                }
                let token = "tok-\(context.generation)-s3cr3t"
                context.registerSecret(token)
                return Session(user: lab.signedIn ? "alice" : nil, token: token)
            },
            ServiceSpec(Keys.analytics, dependsOn: ["configuration"], tearDown: { _ in lab.noteTornDown("analytics") })
            {
                context in
                _ = lab.ran("analytics")
                let settings = try context[Keys.configuration]
                try await Task.sleep(for: work)
                return Analytics(endpoint: "https://\(settings.apiHost)/events")
            },
            ServiceSpec(Keys.feed, dependsOn: ["database", "session"], tearDown: { _ in lab.noteTornDown("feed") }) {
                context in
                _ = lab.ran("feed")
                let session = try context[Keys.session]
                _ = try context[Keys.database]
                try await Task.sleep(for: work)
                return Feed(owner: session.user, items: session.user == nil ? 3 : 12)
            },
        ]
        let entryPoints = Self.makeEntryPoints()
        self.entryPoints = entryPoints
        graph = try ServiceGraph(specs, requirements: entryPoints.map { ServiceGraph.Requirement($0) })
    }

    private static func makeEntryPoints() -> [StoryEntryPoint] {
        [
            StoryEntryPoint(
                id: "launch", requirements: [Keys.configuration.erased, Keys.database.erased, Keys.session.erased]
            ) {
                services in
                let database = try services[Keys.database]
                let session = try services[Keys.session]
                return "home screen for \(session.user ?? "a signed-out user") "
                    + "(\(database.file), schema v\(database.schemaVersion), generation \(services.generation))"
            },
            StoryEntryPoint(id: "scene", requirements: [Keys.session.erased, Keys.feed.erased]) { services in
                let feed = try services[Keys.feed]
                return "scene connected, feed of \(feed.items) items for \(feed.owner ?? "a signed-out user")"
            },
            StoryEntryPoint(id: "deeplink", requirements: [Keys.database.erased, Keys.session.erased]) { services in
                let session = try services[Keys.session]
                _ = try services[Keys.database]
                return "opened app://orders/42 for \(session.user ?? "a signed-out user")"
            },
            StoryEntryPoint(id: "push", requirements: [Keys.session.erased, Keys.analytics.erased]) { services in
                let session = try services[Keys.session]
                let analytics = try services[Keys.analytics]
                return "push for \(session.user ?? "a signed-out user") handled, receipt sent to \(analytics.endpoint)"
            },
        ]
    }
}

/// An entry point whose work is a closure: the stories' launch, scene, deep link and push.
struct StoryEntryPoint: EntryPoint {
    let id: String
    let requirements: [AnyServiceKey]
    let body: @Sendable (ScopedServices) async throws -> String

    init(id: String, requirements: [AnyServiceKey], body: @escaping @Sendable (ScopedServices) async throws -> String) {
        self.id = id
        self.requirements = requirements
        self.body = body
    }

    func run(_ services: ScopedServices) async throws -> String { try await body(services) }
}
