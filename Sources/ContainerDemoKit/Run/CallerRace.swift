import Container

/// One caller of a race: an entry point, or a generic caller that only asks for the snapshot.
struct RaceCaller: Sendable {
    /// The caller's name in the trace.
    let name: String
    /// For a scoped entry point: the instance it runs in, opened for this caller and kept across
    /// its retries (so the instance's attempt budget bounds them), closed when it is done.
    let instance: (scope: String, id: String, parameters: ScopeParameters)?
    /// Asks the container (or the caller's scope instance); returns what the caller did with the services.
    let call: @Sendable (ServiceContainer, ScopeInstance?) async throws -> String

    init(
        name: String, instance: (scope: String, id: String, parameters: ScopeParameters)? = nil,
        call: @escaping @Sendable (ServiceContainer, ScopeInstance?) async throws -> String
    ) {
        self.name = name
        self.instance = instance
        self.call = call
    }

    /// A caller that runs `entryPoint` (any entry point: the existential is opened here); a
    /// scoped one runs in an instance of its own (``DemoScopeInstances``).
    static func entryPoint(_ entryPoint: any EntryPoint) -> RaceCaller {
        let instance = entryPoint.scope.map { scope in
            let made = DemoScopeInstances.instance(for: scope)
            return (scope: scope, id: made.id, parameters: made.parameters)
        }
        return RaceCaller(name: entryPoint.id, instance: instance) { container, scopeInstance in
            try await run(entryPoint, on: container, in: scopeInstance)
        }
    }

    /// A caller that only asks for the snapshot.
    static func generic(_ name: String) -> RaceCaller {
        RaceCaller(name: name) { container, _ in
            let services = try await container.start(as: name)
            return "got generation \(services.generation) (\(services.serviceNames.count) services)"
        }
    }

    private static func run<Entry: EntryPoint>(
        _ entryPoint: Entry, on container: ServiceContainer, in instance: ScopeInstance?
    ) async throws -> String {
        if let instance { return String(describing: try await instance.run(entryPoint)) }
        return String(describing: try await container.run(entryPoint))
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
        if let error = error as? ContainerError, error.code == .buildFailed || error.code == .attemptsExhausted,
            let report = error.report
        {
            let causes = report.nodes.compactMap { node -> String? in
                if case .failed(let failure) = node.outcome { return "\(node.name): \(failure.message)" }
                return nil
            }
            let exhausted = error.code == .attemptsExhausted ? ", the last its attempt budget allows" : ""
            return "generation \(report.generation), attempt \(report.attempt)\(exhausted) failed "
                + "(\(report.failure.map(\.rawValue) ?? "cancelled"))"
                + (causes.isEmpty ? "" : ": " + causes.joined(separator: "; "))
        }
        return String(describing: error)
    }
}

/// Runs callers concurrently against one container, each retrying transient build failures
/// until it gets the services or the generation's attempt budget is used up.
enum CallerRace {
    /// Starts every caller at once and waits for all of them; results in the callers' order.
    ///
    /// - Parameter retryAfter: the container policy's spacing of attempts: a caller waits that
    ///   long after a failed attempt before it asks again (asking sooner only returns the same failure).
    static func run(_ callers: [RaceCaller], on container: ServiceContainer, retryAfter: RetryPolicy.Backoff = .none)
        async
        -> [RaceResult]
    {
        await withTaskGroup(of: (Int, RaceResult).self) { group in
            for (index, caller) in callers.enumerated() {
                group.addTask { (index, await attempt(caller, on: container, retryAfter: retryAfter)) }
            }
            var results = [RaceResult?](repeating: nil, count: callers.count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
    }

    /// Calls until success, or a failure that is not a transient build failure.
    ///
    /// The loop has no count of its own: the attempt budget (`BuildPolicy.maxAttempts`, which the
    /// demo always sets, `--retries N` giving 1 + N) ends it, with `.attemptsExhausted`, when the
    /// last allowed attempt fails. However many callers retry, the generation (or the caller's
    /// scope instance) never gets more builds than that (Container's AttemptBudget article).
    static func attempt(_ caller: RaceCaller, on container: ServiceContainer, retryAfter: RetryPolicy.Backoff = .none)
        async
        -> RaceResult
    {
        var instance: ScopeInstance?
        if let scoped = caller.instance {
            do {
                instance = try container.openScope(scoped.scope, id: scoped.id, parameters: scoped.parameters)
            } catch {
                return RaceResult(name: caller.name, outcome: .failure(error), calls: 1, failedBuilds: [])
            }
        }
        let result = await loop(caller, on: container, in: instance, retryAfter: retryAfter)
        if let instance { _ = try? await instance.close() }
        return result
    }

    private static func loop(
        _ caller: RaceCaller, on container: ServiceContainer, in instance: ScopeInstance?,
        retryAfter: RetryPolicy.Backoff
    ) async -> RaceResult {
        var failed: [BuildReport] = []
        var calls = 0
        while true {
            calls += 1
            do {
                let text = try await caller.call(container, instance)
                return RaceResult(name: caller.name, outcome: .success(text), calls: calls, failedBuilds: failed)
            } catch let error as ContainerError where error.code == .buildFailed || error.code == .attemptsExhausted {
                // A caller that asked before the next attempt was allowed got the same build's failure again.
                if let report = error.report, failed.last?.build != report.build { failed.append(report) }
                guard error.code == .buildFailed, error.failure == .transient, !Task.isCancelled else {
                    return RaceResult(name: caller.name, outcome: .failure(error), calls: calls, failedBuilds: failed)
                }
                let delay = retryAfter.delay(beforeRetry: error.report?.attempt ?? 1)
                // Backing off as the policy asks (not ordering anything): a sooner call gets the same failure.
                if delay > .zero { try? await Task.sleep(for: delay) }
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
