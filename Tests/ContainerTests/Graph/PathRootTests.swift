import Container
import Testing

@Suite("Path roots: '$name/...' path options start at folders the app supplies")
struct PathRootTests {
    private func options(_ path: String, roots: [String: String]) -> ServiceOptions {
        ServiceOptions(["path": .string(path)], baseDirectory: "/bundle/Configs", pathRoots: roots)
    }

    private func resolved(_ path: String, roots: [String: String]) throws -> String {
        try options(path, roots: roots).path("path")
    }

    /// The error `path("path")` throws, or `nil` (recorded as a test issue) when it resolves.
    private func failure(
        _ path: String, roots: [String: String], sourceLocation: SourceLocation = #_sourceLocation
    ) -> OptionError? {
        do {
            let resolved = try options(path, roots: roots).path("path")
            Issue.record("'\(path)' resolved to '\(resolved)'", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "a rooted path starts at the root's folder; other paths keep their meaning",
        arguments: [
            ("$data/app.sqlite", "/var/app/Support/app.sqlite"),
            ("$data/db/app.sqlite", "/var/app/Support/db/app.sqlite"),
            ("$data//app.sqlite", "/var/app/Support/app.sqlite"),
            ("$data", "/var/app/Support"),
            ("$cache/x", "/var/app/Caches/x"),
            ("settings.json", "/bundle/Configs/settings.json"),
            ("/etc/hosts", "/etc/hosts"),
            ("./$data", "/bundle/Configs/./$data"),
        ])
    func resolution(path: String, expected: String) throws {
        let roots = ["data": "/var/app/Support", "cache": "/var/app/Caches/"]
        #expect(try resolved(path, roots: roots) == expected)
    }

    @Test("a misspelt root is an error that names the option, suggests the root and lists the supplied ones")
    func unknownRoot() throws {
        let error = try #require(failure("$dta/app.sqlite", roots: ["data": "/d", "cache": "/c"]))
        #expect(error.option == "path")
        #expect(
            error.message
                == "option 'path': unknown path root '$dta' in '$dta/app.sqlite'; did you mean '$data'? "
                + "(path roots the app supplies: $cache, $data)")
    }

    @Test("a root when the app supplies none says how to supply one")
    func noRoots() throws {
        let error = try #require(failure("$data/app.sqlite", roots: [:]))
        #expect(error.message.hasPrefix("option 'path': '$data/app.sqlite' starts at the path root '$data'"))
        #expect(error.message.contains("pass pathRoots: [\"data\": folder] when loading the config"))
    }

    @Test("'$' without a name is an error that shows both ways out", arguments: ["$", "$/app.sqlite"])
    func namelessRoot(path: String) throws {
        let error = try #require(failure(path, roots: ["data": "/d"]))
        #expect(error.message.contains("names no path root"))
        #expect(error.message.contains("'./\(path)'"))
    }

    @Test("only path options resolve roots: string() returns the text as written")
    func stringsAreLeftAlone() throws {
        #expect(try options("$data/x", roots: ["data": "/d"]).string("path") == "$data/x")
        #expect(try options("$nope/x", roots: [:]).string("path") == "$nope/x")
    }
}
