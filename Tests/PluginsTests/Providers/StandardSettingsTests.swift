import Container
import ContainerTesting
import Testing

@testable import Plugins

/// The standard providers read their options once, at validation, into their typed options,
/// with paths resolved; their `make` reads those back.
struct StandardSettingsTests {
    static let options = ServiceOptions(
        ["path": .string("db/app.sqlite"), "busyTimeoutMs": .int(250), "fileProtection": .string("complete")],
        baseDirectory: "/configs")

    @Test("sqlite: the settings are SQLiteOptions with the path resolved; :memory: stays as written")
    func sqlite() throws {
        let settings = try SQLiteProvider().settings(from: Self.options)
        #expect(
            settings
                == SQLiteOptions(
                    path: "/configs/db/app.sqlite", busyTimeout: .milliseconds(250), fileProtection: .complete))
        let rooted = ServiceOptions(["path": .string("$data/app.sqlite")], pathRoots: ["data": "/var/app"])
        #expect(try SQLiteProvider().settings(from: rooted).path == "/var/app/app.sqlite")
        let memory = ServiceOptions(["path": .string(":memory:")], baseDirectory: "/configs")
        #expect(try SQLiteProvider().settings(from: memory).path == ":memory:")
        #expect(throws: OptionError.invalid("busyTimeoutMs", "must be between 0 and 600000 (ten minutes), found -1")) {
            try SQLiteProvider().settings(from: ServiceOptions(["path": .string("x"), "busyTimeoutMs": .int(-1)]))
        }
        // `validate(options:)` is the same check.
        #expect(throws: OptionError.self) { try SQLiteProvider().validate(options: ServiceOptions()) }
    }

    @Test("an empty path is refused when the graph is validated, by sqlite and configuration alike")
    func emptyPaths() {
        let empty = ServiceOptions(["path": .string("")], baseDirectory: "/configs")
        #expect(
            throws: OptionError.invalid("path", "must not be empty; give the database file's path, or \":memory:\"")
        ) { try SQLiteProvider().settings(from: empty) }
        #expect(throws: OptionError.invalid("path", "must not be empty; give the settings file's path")) {
            try ConfigurationProvider().settings(from: empty)
        }
    }

    @Test("configuration and session: the path resolved, the database named")
    func configurationAndSession() throws {
        let configuration = ServiceOptions(["path": .string("settings.json")], baseDirectory: "/configs")
        #expect(
            try ConfigurationProvider().settings(from: configuration)
                == ConfigurationOptions(path: "/configs/settings.json"))
        #expect(try SessionProvider().settings(from: ServiceOptions()) == SessionOptions())
        #expect(
            try SessionProvider().settings(from: ServiceOptions(["database": .string("cache")]))
                == SessionOptions(database: ServiceKey("cache")))
    }

    @Test("simulated: SimulatedOptions, read from a config's options and written back")
    func simulated() throws {
        let options = ServiceOptions([
            "durationMs": .int(20), "outcomes": .array([.string("transient"), .string("ok")]),
        ])
        let settings = try SimulatedProvider().settings(from: options)
        #expect(settings == SimulatedOptions(duration: .milliseconds(20), outcomes: [.transient, .ok]))
        #expect(settings.serviceOptions == options)
        #expect(try SimulatedProvider().settings(from: ServiceOptions()) == SimulatedOptions())
        #expect(SimulatedOptions().serviceOptions == ServiceOptions())
        #expect(throws: OptionError.self) {
            try SimulatedProvider().settings(from: ServiceOptions(["durationMS": .int(1)]))
        }
    }

    @Test("CountingProvider reads the wrapped provider's settings")
    func countingProviderForwardsSettings() throws {
        let counting = CountingProvider(SimulatedProvider(), log: OrderLog()) { $0.node }
        let settings: SimulatedOptions = try counting.settings(from: ServiceOptions(["durationMs": .int(3)]))
        #expect(settings.duration == .milliseconds(3))
    }
}
