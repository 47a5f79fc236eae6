import Container
import NewsApp

// Launch, then a push notification opened in its own scope instance.
let container = ServiceContainer(graph: try makeGraph())
let services = try await container.start()
print("launch: analytics reaches \(try services[.analytics].trackers.count) trackers")
let line = try await container.run(PushEntryPoint(), scopeID: "notification-1", parameters: [.set(.itemID, to: "A-17")])
print("push: \(line)")
try await container.shutdown()
