import Container
import ContainerTesting
import Foundation
import Plugins
import TestSupport
import Testing

/// Configs name the app's writable folders as path roots (`$data/app.sqlite`): the config stays
/// read-only (an app bundle), the database goes where the app says.
struct PathRootConfigTests {
    private static func config(databasePath: String, settingsPath: String = "settings/app-settings.json") -> String {
        """
        {
          "version": 1,
          "services": [
            { "name": "configuration", "provider": "configuration", "options": { "path": "\(settingsPath)" } },
            { "name": "database", "provider": "sqlite", "dependsOn": ["configuration"],
              "options": { "path": "\(databasePath)" } }
          ]
        }
        """
    }

    @Test func theDatabaseGoesToTheDataRootAndNothingIsWrittenNextToTheConfig() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let data = fixture.directory.deletingLastPathComponent()
            .appendingPathComponent("plugins-tests-data-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: data) }
        let file = try fixture.write("rooted.json", Self.config(databasePath: "$data/app.sqlite"))
        let before = try folderListing(fixture.directory.path)

        let config = try ConfigLoader.load(path: file, pathRoots: ["data": data])
        let container = ServiceContainer(graph: config.graph, policy: config.policy)
        let services = try await withTimeout { try await container.start() }
        #expect(try services[.database].path == data + "/app.sqlite")
        try await withTimeout { try await container.shutdown() }

        #expect(FileManager.default.fileExists(atPath: data + "/app.sqlite"))
        #expect(try folderListing(fixture.directory.path) == before, "nothing written next to the config")
    }

    @Test func theSettingsFileCanStartAtARootToo() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let file = try fixture.write(
            "rooted.json", Self.config(databasePath: ":memory:", settingsPath: "$settings/app-settings.json"))
        let roots = ["settings": fixture.directory.appendingPathComponent("settings").path]
        let config = try ConfigLoader.load(path: file, pathRoots: roots)
        let container = ServiceContainer(graph: config.graph, policy: config.policy)
        let services = try await withTimeout { try await container.start() }
        #expect(try services[.configuration].appName == "Demo")
        try await withTimeout { try await container.shutdown() }
    }

    @Test func aMisspeltRootIsAConfigErrorAtTheOptionWithASuggestion() throws {
        do {
            _ = try ConfigLoader.load(
                text: Self.config(databasePath: "$dta/app.sqlite"), file: "app.json", pathRoots: ["data": "/d"])
            Issue.record("a config with an unknown path root loaded")
        } catch {
            #expect(error.codes == [.invalidOptions])
            #expect(
                error.description
                    == "app.json:6:28: services[1].options.path: service 'database' (provider 'sqlite'): "
                    + "option 'path': unknown path root '$dta' in '$dta/app.sqlite'; did you mean '$data'? "
                    + "(path roots the app supplies: $data)")
        }
    }

    @Test func aRootWithoutRootsSaysHowToSupplyThem() throws {
        do {
            _ = try ConfigLoader.load(text: Self.config(databasePath: "$data/app.sqlite"), file: "app.json")
            Issue.record("a config with a path root loaded without roots")
        } catch {
            #expect(error.codes == [.invalidOptions])
            #expect(error.description.contains("services[1].options.path:"))
            #expect(error.description.contains("pass pathRoots: [\"data\": folder] when loading the config"))
        }
    }
}
