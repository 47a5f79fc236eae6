import Container

/// One caller of a race: an entry point, or a generic caller that only asks for the snapshot.
struct RaceCaller: Sendable {
    /// The caller's name in the trace.
    let name: String
    /// Asks the container; returns what the caller did with the services.
    let call: @Sendable (ServiceContainer) async throws -> String

    /// A caller that runs `entryPoint` (any entry point: the existential is opened here).
    static func entryPoint(_ entryPoint: any EntryPoint) -> RaceCaller {
        RaceCaller(name: entryPoint.id) { container in try await run(entryPoint, on: container) }
    }

    /// A caller that only asks for the snapshot.
    static func generic(_ name: String) -> RaceCaller {
        RaceCaller(name: name) { container in
            let services = try await container.start(as: name)
            return "got generation \(services.generation) (\(services.serviceNames.count) services)"
        }
    }

    private static func run<Entry: EntryPoint>(_ entryPoint: Entry, on container: ServiceContainer) async throws
        -> String
    {
        guard let scope = entryPoint.scope else { return String(describing: try await container.run(entryPoint)) }
        // A scoped entry point runs in an instance of its own, opened for this run and closed after it.
        let instance = DemoScopeInstances.instance(for: scope)
        return String(
            describing: try await container.run(entryPoint, scopeID: instance.id, parameters: instance.parameters))
    }
}

/// What one caller of a race got.
struct RaceResult: Sendable {
    let name: String
    /// What the caller did with its services, or why it got none.
    let outcome: Result<String, any Error>
    /// How many times it called the container (1 + retries).
    let calls: Int
    /// The failed builds it saw along the way (one per failed call).
    let failedBuilds: [BuildReport]

    var succeeded: Bool {
        if case .success = outcome { return true }
        return false
    }

    /// `launch → home screen for alice` or `launch ✗ generation 1 ... failed`.
    var line: String {
        let retried = calls > 1 ? " (after \(calls - 1) \(calls == 2 ? "retry" : "retries"))" : ""
        switch outcome {
        case .success(let text): return "\(name) → \(text)\(retried)"
        case .failure(let error): return "\(name) ✗ \(RaceResult.describe(error))\(retried)"
        }
    }

    /// A short form of `error`: for a failed build, its generation, attempt and failed nodes.
    static func describe(_ error: any Error) -> String {
        if error is CancellationError { return "cancelled" }
        if let error = error as? ContainerError, error.code == .buildFailed, let report = error.report {
            let causes = report.nodes.compactMap { node -> String? in
                if case .failed(let failure) = node.outcome { return "\(node.name): \(failure.message)" }
                return nil
            }
            return "generation \(report.generation), attempt \(report.attempt) failed "
                + "(\(report.failure.map(\.rawValue) ?? "cancelled"))"
                + (causes.isEmpty ? "" : ": " + causes.joined(separator: "; "))
        }
        return String(describing: error)
    }
}

/// Runs callers concurrently against one container, each retrying transient build failures.
enum CallerRace {
    /// Starts every caller at once and waits for all of them; results in the callers' order.
    ///
    /// - Parameter retries: after a transient failure of build attempt k, callers call again when k <= retries,
    ///   so the build gets at most 1 + retries attempts however many callers race.
    static func run(_ callers: [RaceCaller], on container: ServiceContainer, retries: Int) async -> [RaceResult] {
        await withTaskGroup(of: (Int, RaceResult).self) { group in
            for (index, caller) in callers.enumerated() {
                group.addTask { (index, await attempt(caller, on: container, retries: retries)) }
            }
            var results = [RaceResult?](repeating: nil, count: callers.count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
    }

    /// Calls until success, a failure that is not a transient build failure, or the retries run out.
    static func attempt(_ caller: RaceCaller, on container: ServiceContainer, retries: Int) async -> RaceResult {
        var failed: [BuildReport] = []
        var calls = 0
        while true {
            calls += 1
            do {
                let text = try await caller.call(container)
                return RaceResult(name: caller.name, outcome: .success(text), calls: calls, failedBuilds: failed)
            } catch let error as ContainerError where error.code == .buildFailed {
                if let report = error.report { failed.append(report) }
                // Retry only after a transient failure of attempt k <= retries: every caller
                // then agrees, and the build gets at most 1 + retries attempts (deterministic).
                if error.failure == .transient, let attempt = error.report?.attempt, attempt <= retries { continue }
                return RaceResult(name: caller.name, outcome: .failure(error), calls: calls, failedBuilds: failed)
            } catch {
                return RaceResult(name: caller.name, outcome: .failure(error), calls: calls, failedBuilds: failed)
            }
        }
    }

    /// The distinct builds seen by `results` plus the published snapshot's, ordered by generation and attempt.
    static func reports(_ results: [RaceResult], published: AppServices?) -> [BuildReport] {
        var byAttempt: [BuildAttempt: BuildReport] = [:]
        for report in results.flatMap(\.failedBuilds) + (published.map { [$0.report] } ?? []) {
            byAttempt[report.build] = report
        }
        return byAttempt.values.sorted { $0.build < $1.build }
    }
}
