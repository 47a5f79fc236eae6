import Testing

@testable import Container

@Suite("ServiceIssue: one problem as data, one printed form for graph and config errors")
struct ServiceIssueTests {
    struct Quoted: Error {}

    @Test("An issue prints `file:line:column: keyPath: message`, leaving out what is unknown")
    func printedForm() {
        let placed = GraphError.Issue(
            code: .missingDependency, message: "service 'b' depends on 'x', which is not declared", service: "b",
            location: ConfigLocation(file: "app.json", keyPath: "services[1].dependsOn[0]", line: 6, column: 61))
        #expect(
            placed.description
                == "app.json:6:61: services[1].dependsOn[0]: service 'b' depends on 'x', which is not declared")
        let noKey = GraphError.Issue(
            code: .cycle, message: "m", location: ConfigLocation(file: "app.json", keyPath: "", line: 1, column: 1))
        #expect(noKey.description == "app.json:1:1: m")
        let nowhere = GraphError.Issue(code: .cycle, message: "m")
        #expect(nowhere.description == "m")
        #expect(nowhere.location == ConfigLocation())
    }

    @Test("Two issues are equal when everything but the underlying error is")
    func equality() {
        let location = ConfigLocation(file: "app.json", keyPath: "services[0].options", line: 3, column: 5)
        let first = GraphError.Issue(
            code: .invalidOptions, message: "m", service: "a", location: location, option: "path", underlying: Quoted())
        let second = GraphError.Issue(
            code: .invalidOptions, message: "m", service: "a", location: location, option: "path")
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        let otherOption = GraphError.Issue(
            code: .invalidOptions, message: "m", service: "a", location: location, option: "mode")
        #expect(first != otherOption)
        let otherPlace = GraphError.Issue(
            code: .invalidOptions, message: "m", service: "a", location: location.appending("path"), option: "path")
        #expect(first != otherPlace)
    }
}
