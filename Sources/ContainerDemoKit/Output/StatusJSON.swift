import Container
import Foundation

/// `container.status` as JSON (`--status`): what a health endpoint of the app would return.
///
/// ```json
/// { "state": "ready", "generation": 1, "attempt": 1,
///   "lastBuild": { "generation": 1, "attempt": 1, "result": "succeeded", "durationMs": 12.5,
///                  "nodes": [ { "name": "database", "outcome": "succeeded", "runs": 1, "durationMs": 4.1 } ] },
///   "lastFailure": null, "nextAttemptAtMs": null, "openScopes": [], "waitingCallers": 0,
///   "unreportedTeardowns": [], "inputsNotSupplied": [],
///   "services": [ { "name": "database", "start": "eager", "state": "built" } ] }
/// ```
///
/// Times are milliseconds since the container was created. Messages are the container's
/// (already redacted), redacted once more with the run's secret options.
enum StatusJSON {
    /// The pretty-printed JSON object of `status` (keys sorted), with a trailing newline.
    static func text(_ status: ContainerStatus, redactor: Redactor) -> String {
        let data =
            (try? JSONSerialization.data(
                withJSONObject: object(status, redactor: redactor), options: [.prettyPrinted, .sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// The JSON object of `status`, as Foundation values.
    static func object(_ status: ContainerStatus, redactor: Redactor) -> [String: Any] {
        [
            "state": status.state.description,
            "generation": status.generation,
            "attempt": status.attempt,
            "lastBuild": status.lastBuild.map { build(of: $0, redactor: redactor) } ?? NSNull(),
            "lastFailure": status.lastFailure.map { failure in
                ["code": failure.code.description, "message": redactor.redact(failure.message)] as [String: Any]
            } ?? NSNull(),
            "nextAttemptAtMs": status.nextAttemptAt.map(milliseconds) ?? NSNull(),
            "openScopes": status.openScopes,
            "waitingCallers": status.waitingCallers,
            "unreportedTeardowns": status.unreportedTeardowns.map { teardown in
                [
                    "service": teardown.service, "generation": teardown.generation,
                    "error": teardown.error.map(redactor.redact) ?? NSNull(),
                ] as [String: Any]
            },
            "inputsNotSupplied": status.inputsNotSupplied,
            "services": status.services.map { service in
                ["name": service.name, "start": service.start.rawValue, "state": service.state.description]
            },
        ]
    }

    private static func build(of report: BuildReport, redactor: Redactor) -> [String: Any] {
        let result =
            report.succeeded
            ? "succeeded" : report.wasCancelled ? "cancelled" : "failed (\(report.failure ?? .transient))"
        return [
            "generation": report.generation,
            "attempt": report.attempt,
            "result": result,
            "durationMs": milliseconds(report.duration),
            "nodes": report.nodes.map { node(of: $0, redactor: redactor) },
        ]
    }

    private static func node(of node: BuildReport.NodeReport, redactor: Redactor) -> [String: Any] {
        var object: [String: Any] = ["name": node.name, "outcome": node.outcome.name, "runs": node.runs]
        switch node.outcome {
        case .succeeded(let duration): object["durationMs"] = milliseconds(duration)
        case .failed(let failure):
            object["failure"] = failure.kind.rawValue
            object["error"] = redactor.redact(failure.message)
        case .skipped(let because): object["because"] = because
        case .cancelled(let phase): object["phase"] = phase.rawValue
        case .reused: break
        }
        return object
    }

    /// Milliseconds with at most three decimals (microseconds).
    private static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        let micros = Double(seconds) * 1_000_000 + (Double(attoseconds) / 1e12).rounded()
        return micros / 1_000
    }
}
