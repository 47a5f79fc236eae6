// What the documentation's snippets take as given, as the articles' text does: "your graph", "the
// container", the folder an app keeps its files in. Module DocSnippetGivens, imported by every
// snippet (scripts/check-doc-snippets.sh). The snippets are built, never run: these values only
// give the names their types.
public import Container
public import Foundation

/// The graph an article starts from ("`ServiceContainer(graph: graph)`").
public let graph = exampleGraph()

/// A new version of ``graph``, for the reload articles.
public let newGraph = exampleGraph()

/// The container an article's snippet works with.
public let container = ServiceContainer(graph: graph)

/// The app's Application Support folder (in an app: `FileManager.default.url(for: .applicationSupportDirectory, ...)`).
public let applicationSupport = URL(fileURLWithPath: NSTemporaryDirectory())

/// The path of the app's config file (in an app: `Bundle.main.path(forResource: "app", ofType: "json")`).
public let configPath = "Configs/app.json"

/// The path of the app's settings file (in an app: a file of its bundle).
public let settingsPath = "Configs/settings/app-settings.json"

/// The path of the app's database (in an app: a file of its Application Support folder).
public let databasePath = NSTemporaryDirectory() + "app.sqlite"

/// The folder a test gives as the `$data` path root.
public let dataFolder = NSTemporaryDirectory()

/// The overlays a config is loaded with.
public let overlays = ["Configs/overlays/test.json"]

private func exampleGraph() -> ServiceGraph {
    do {
        return try ServiceGraph([ServiceSpec(ServiceKey<String>("greeting")) { _ in "hello" }])
    } catch {
        preconditionFailure("the example graph is valid: \(error)")
    }
}
