import Container
import Foundation
import Plugins
import TestSupport
import Testing

/// Every number and size of the format has a documented bound; past it, an error with the place,
/// the limit and the fix (``ConfigError/Code/limitExceeded``).
struct ConfigLimitsTests {
    /// One `simulated` service with `fields` (JSON members) added.
    private func service(_ fields: String) -> String {
        "{ \"version\": 1, \"services\": [ { \"name\": \"a\", \"provider\": \"simulated\", \(fields) } ] }"
    }

    @Test func retryAttemptsAreBounded() throws {
        // 100,000 attempts of an always-transient node took 7.6 s (and were quadratic).
        let error = try #require(loadError(service("\"retry\": { \"maxAttempts\": 100000 }")))
        #expect(
            error.description == """
                test.json:1:97: services[0].retry.maxAttempts: 100000 runs are over the limit of 100 \
                (ConfigLimits.maxRetryAttempts); use at most 100, with a delay (initialDelayMs, multiplier) to wait \
                out longer outages
                """)
        #expect(error.codes == [.limitExceeded])
        let shorthand = try #require(loadError(service("\"retry\": 101")))
        #expect(shorthand.codes == [.limitExceeded])
        #expect(shorthand.issues.first?.location.keyPath == "services[0].retry")
        let config = try ConfigLoader.load(text: service("\"retry\": 100"), file: "test.json")
        #expect(config.specs.first?.retry.maxAttempts == 100)
    }

    @Test func delaysMultiplierAndTimeoutAreBounded() throws {
        let error = try #require(
            loadError(
                service(
                    """
                    "timeoutMs": 3600001, "retry": { "maxAttempts": 2, "initialDelayMs": 86400001, \
                    "maxDelayMs": 1e10, "multiplier": 101 }
                    """)))
        #expect(error.codes == [.limitExceeded, .limitExceeded, .limitExceeded, .limitExceeded])
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(
            lines.first
                == "test.json:1:84: services[0].timeoutMs: 3600001 is over the limit of 3600000 ms, one hour "
                + "(ConfigLimits.maxTimeoutMs); a node that may take longer should not block start-up; remove "
                + "timeoutMs for no timeout")
        #expect(
            error.description.contains("services[0].retry.initialDelayMs: 86400001 is over the limit of 86400000 ms"))
        #expect(error.description.contains("services[0].retry.maxDelayMs: 10000000000.0 is over the limit"))
        #expect(error.description.contains("services[0].retry.multiplier: 101 is over the limit of 100"))
        // The bounds themselves are allowed.
        let config = try ConfigLoader.load(
            text: service(
                """
                "timeoutMs": 3600000, "retry": { "maxAttempts": 2, "initialDelayMs": 86400000, \
                "maxDelayMs": 86400000, "multiplier": 100 }
                """), file: "test.json")
        #expect(config.specs.first?.timeout == .seconds(3_600))
        #expect(config.specs.first?.retry.multiplier == 100)
    }

    @Test func lowerBoundsKeepTheirMessages() throws {
        let error = try #require(
            loadError(
                service(
                    """
                    "timeoutMs": 0, "retry": { "maxAttempts": 2, "initialDelayMs": -1, "multiplier": 0.5 }
                    """)))
        #expect(error.codes == [.invalidValue, .invalidValue, .invalidValue])
        let text = error.description
        #expect(
            text.contains(
                "services[0].timeoutMs: must be at least 0.000001 (milliseconds: a nanosecond); remove it for no timeout"
            ))
        // A positive number too small to be a duration is no timeout of zero either.
        let tiny = try #require(loadError(service(#""timeoutMs": 1e-300"#)))
        #expect(tiny.codes == [.invalidValue])
        #expect(text.contains("services[0].retry.initialDelayMs: must not be negative"))
        #expect(text.contains("services[0].retry.multiplier: must be at least 1"))
    }

    @Test func simulatedDurationIsBounded() throws {
        // durationMs of Int.max slept for ever.
        for value in ["3600001", "9223372036854775807"] {
            let error = try #require(loadError(service("\"options\": { \"durationMs\": \(value) }")))
            #expect(error.codes == [.invalidOptions])
            #expect(error.issues.first?.location.keyPath == "services[0].options.durationMs")
            #expect(error.description.contains("\(value) is over the limit of 3600000 ms (one hour"))
        }
    }

    @Test func serviceDependencyAndEntryPointCountsAreBounded() throws {
        let services = Array(repeating: "{}", count: ConfigLimits.maxServices + 1).joined(separator: ",")
        let tooMany = try #require(loadError("{ \"version\": 1, \"services\": [\(services)] }"))
        #expect(tooMany.codes == [.limitExceeded])
        #expect(
            tooMany.description
                == "test.json:1:29: services: 100001 services are over the limit of 100000 "
                + "(ConfigLimits.maxServices); split the graph into several configs")

        let names = (0...ConfigLimits.maxDependencies).map { "\"d\($0)\"" }.joined(separator: ",")
        let wide = try #require(loadError(service("\"dependsOn\": [\(names)]")))
        #expect(wide.codes == [.limitExceeded])
        #expect(wide.description.contains("services[0].dependsOn: 10001 dependencies are over the limit of 10000"))

        let ids = Array(repeating: "\"push\"", count: ConfigLimits.maxEntryPoints + 1).joined(separator: ",")
        let entries = try #require(loadError("{ \"version\": 1, \"services\": [], \"entryPoints\": [\(ids)] }"))
        #expect(entries.codes == [.limitExceeded])
        #expect(entries.description.contains("entryPoints: 1001 entry points are over the limit of 1000"))
    }

    @Test func longNamesAreRejected() throws {
        let long = String(repeating: "n", count: 257)
        let error = try #require(
            loadError(
                """
                { "version": 1, "services": [
                  { "name": "\(long)", "provider": "simulated" },
                  { "name": "b", "provider": "\(long)" }
                ], "entryPoints": ["\(long)"] }
                """))
        #expect(error.codes == [.invalidName, .invalidName, .invalidName])
        #expect(error.issues.map(\.location.keyPath) == ["services[0].name", "services[1].provider", "entryPoints[0]"])
        #expect(error.description.contains("is 257 bytes long, over the limit of 256 bytes (NameRules.maxBytes)"))
        // A message quotes a long name shortened, not in full.
        #expect(!error.description.contains(long))
    }

    @Test func longStringsAndDeepNestingAreRejectedWithTheirPosition() throws {
        let longest = String(repeating: "x", count: ConfigLimits.maxStringBytes)
        _ = try ConfigLoader.load(text: service("\"description\": \"\(longest)\""), file: "test.json")
        let text = longest + "x"
        let long = try #require(loadError(service("\"description\": \"\(text)\"")))
        #expect(long.codes == [.limitExceeded])
        #expect(
            long.description
                == "test.json:1:86: the string is 1048577 bytes long, over the limit of 1048576 bytes "
                + "(ConfigLimits.maxStringBytes); keep long texts in a file the service reads")

        // The top level is depth 1, the service 3, its options 4: 61 more arrays make 65.
        let deep = String(repeating: "[", count: 61) + String(repeating: "]", count: 61)
        let nested = try #require(loadError(service("\"options\": { \"description\": \(deep) }")))
        #expect(nested.codes == [.limitExceeded])
        #expect(nested.description.hasPrefix("test.json:1:"))
        #expect(
            nested.description.contains("the JSON is nested more than 64 levels deep (ConfigLimits.maxNestingDepth)"))
        let fits = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        _ = try ConfigLoader.load(text: service("\"options\": { \"description\": \(fits) }"), file: "test.json")
    }

    @Test func configDataOverTheSizeLimitIsRejectedBeforeParsing() throws {
        let data = Data(count: ConfigLimits.maxFileBytes + 1)
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.load(data: data, file: "huge.json") }
        #expect(error?.codes == [.limitExceeded])
        #expect(
            error?.description
                == "huge.json:1:1: the config is 16777217 bytes, over the limit of 16777216 bytes (16 MiB, "
                + "ConfigLimits.maxFileBytes); split it into smaller configs")
    }
}
