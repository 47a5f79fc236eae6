import Container
import ContainerTesting
import Plugins

/// Accounts (Container's Scopes article, "Nested scopes", and the Observing the services
/// article), on `Configs/accounts.json`: two signed-in accounts, each an instance of the
/// `account` scope, with a window (`scene`, nested in `account`) each, and a push for the second
/// account at cold start (`push`, nested in `account`). A home view follows the active account's
/// feed through `values(of:)`; switching the active account (supplying the input again) gives it
/// the new feed, without polling or sleeping. Logging the first account out closes its window
/// before its own services, and leaves the other account alone.
enum AccountsStory {
    /// The story's config.
    static let path = "Configs/accounts.json"
    static let activeAccount = ServiceKey<String>("activeAccount")
    static let homeFeed = ServiceKey<SimulatedValue>("homeFeed")
    static let accounts = ["ada", "grace"]

    static func run(
        _ config: LoadedConfig, retries: Int?, interrupt: DemoInterrupt = DemoInterrupt(), live: (any TraceSink)? = nil
    ) async -> Result<ScenarioReport, ConfigProblem> {
        let graph = config.graph
        let needed = [("account", nil), ("scene", "account"), ("push", "account")]
        let missing = needed.filter { scope, parent in
            !graph.scopeNames.contains(scope) || graph.parentScope(of: scope) != parent
        }
        guard missing.isEmpty, graph.inputNames.contains(activeAccount.name), graph.providerID(of: homeFeed.name) != nil
        else {
            return .failure(
                ConfigProblem(
                    description: "container-demo: the accounts story needs the scopes account, scene and push "
                        + "(both nested in account), the input \(activeAccount.name) and the service "
                        + "\(homeFeed.name); \(config.file) lacks some; run it with \(path)"))
        }
        let watcher = TraceWatcher()
        let container = ServiceContainer(
            graph: graph, policy: AttemptBudget.policy(config.policy, retries: retries),
            trace: [watcher] + (live.map { [$0] } ?? []))
        interrupt.track(container)
        var run = Run()
        do {
            try await tell(&run, container: container, watcher: watcher)
        } catch {
            run.failure = "\(error)"
        }
        run.status = container.status
        await interrupt.finish(container)
        run.observedAccounts = await run.observer?.value ?? []
        run.narrative.append(
            "4. an observer of the open accounts saw: " + run.observedAccounts.map { "\($0)" }.joined(separator: " → "))
        run.events = watcher.events
        var report = ScenarioReport(
            scenario: .accounts,
            title: "accounts: two accounts with a window each and a push, nested scopes, an observed switch, a logout",
            graph: graph, events: run.events, reports: run.reports, narrative: run.narrative,
            checks: checks(run) + TraceInvariants.check(run.events, graph: graph), published: true,
            isConfigRun: false)
        report.status = run.status
        report.streamed = live != nil
        return .success(report)
    }

    /// What one run saw.
    struct Run {
        var narrative: [String] = []
        var reports: [BuildReport] = []
        /// Each account's instance label, and its window's and push's.
        var labels: [String] = []
        /// What the home view re-read, in order.
        var viewed: [String] = []
        /// Whether the accounts kept their snapshots across the switch.
        var accountsKept = false
        /// The instances the logout closed, in order.
        var closed: [String] = []
        /// The open account instances after the logout.
        var accountsAfterLogout: [String] = []
        /// The lists the observer of the open accounts was given.
        var observedAccounts: [[String]] = []
        var failure: String?
        /// The observer of the open accounts, which ends at the shutdown.
        var observer: Task<[[String]], Never>?
        var status: ContainerStatus?
        var events: [TraceEvent] = []
    }

    private static func tell(_ run: inout Run, container: ServiceContainer, watcher: TraceWatcher) async throws {
        // 1. Cold start: the stored active account, the launch, two accounts with a window each,
        //    and a push for the second account, all at once.
        // An observer of the open accounts (an app service fanning out over them would take the
        // same sequence); it ends at the shutdown.
        // It reports each list it is given, so the story waits for it to see both accounts before
        // the logout, and the logout before the shutdown: a slow consumer gets only the newest
        // list, so the next change could otherwise replace the one the story shows.
        let accountUpdates = container.instanceUpdates(of: "account").makeAsyncIterator()
        let (observed, report) = AsyncStream.makeStream(of: [String].self)
        let observer = Task {
            var updates = accountUpdates
            var seen: [[String]] = []
            while let accounts = await updates.next() {
                seen.append(accounts.map(\.id))
                report.yield(accounts.map(\.id))
            }
            report.finish()
            return seen
        }
        defer { run.observer = observer }
        try await container.supply(activeAccount, accounts[0])
        var instances: [ScopeInstance] = []
        for account in accounts {
            instances.append(try container.openScope("account", id: account))
        }
        let windows = try instances.enumerated().map { index, account in
            try account.openScope(
                "scene", id: "window-\(index + 1)", parameters: [.set(.windowID, to: "window-\(index + 1)")])
        }
        let push = try instances[1].openScope("push", id: "notification-7", parameters: [.set(.itemID, to: "B-3")])
        run.labels = instances.map(\.label) + windows.map(\.label) + [push.label]
        async let launched = container.start(as: "launch")
        async let first = windows[0].start(as: "window-1")
        async let second = windows[1].start(as: "window-2")
        async let pushed = push.start(as: "push")
        let results = try await [launched, first, second, pushed]
        run.reports = [results[0].report]
        run.narrative.append("1. cold start: launch, \(run.labels.dropFirst(2).joined(separator: ", ")) at once")
        for (label, snapshot) in zip(["launch"] + run.labels.dropFirst(2), results) {
            run.narrative.append("   \(label) → \(snapshot.serviceNames.joined(separator: ", "))")
        }

        // 2. The home view follows the active account's feed; the user switches to grace.
        var feed = container.values(of: homeFeed).makeAsyncIterator()
        let accountSnapshots = instances.map(\.current)
        run.narrative.append("2. a home view follows \(homeFeed.name) (values(of:)); the user switches account")
        if let shown = await feed.next() { run.viewed.append(describe(shown, for: accounts[0])) }
        try await container.supply(activeAccount, accounts[1])
        _ = try await container.start(as: "home")
        // The view is woken by the new generation's snapshot: no polling, no sleep.
        if let shown = await feed.next() { run.viewed.append(describe(shown, for: accounts[1])) }
        run.narrative += run.viewed.map { "   the view re-read \($0)" }
        run.accountsKept = zip(instances.map(\.current), accountSnapshots).allSatisfy { $0 != nil && $0 === $1 }
        run.narrative.append(
            "   the accounts' instances " + (run.accountsKept ? "kept their snapshots" : "were rebuilt"))

        // 3. Logout of the first account: its window closes first, then the account itself.
        //    First the observer sees both accounts (a slow consumer may have skipped to them).
        await waitUntil(observed, shows: accounts)
        _ = try await instances[0].close()
        run.closed = watcher.events.filter { $0.kind == .scopeClosed }.compactMap(\.scope)
        let openAccounts = container.openInstances(of: "account")
        run.accountsAfterLogout = openAccounts.map(\.label)
        run.narrative.append("3. \(accounts[0]) logs out: close() closes \(run.closed.joined(separator: ", then "))")
        run.narrative.append(
            "   open accounts: \(run.accountsAfterLogout.joined(separator: ", ")); open instances: "
                + container.openScopes.joined(separator: ", "))
        await waitUntil(observed, shows: openAccounts.map(\.id))
    }

    /// Waits until the observer reports `accounts` as the open accounts. A list stays the newest
    /// until the next open or close, so the observer is given it; bounded in case it is not (the
    /// story's check then says what the observer saw).
    private static func waitUntil(_ observed: AsyncStream<[String]>, shows accounts: [String]) async {
        _ = try? await withTimeout(.seconds(30), "the observer to see \(accounts)") {
            for await seen in observed where seen == accounts { return }
        }
    }

    private static func describe(_ value: SimulatedValue, for account: String) -> String {
        "\(value.node) of generation \(value.generation), for \(account)"
    }

    static func checks(_ run: Run) -> [CheckResult] {
        let starts = run.events.filter { $0.kind.name == "node.started" }.map {
            "\($0.scope ?? "app")/\($0.kind.node ?? "")"
        }
        let repeated = Dictionary(grouping: starts, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        let appRebuilt = starts.filter { $0.hasPrefix("app/") && !["app/homeFeed", "app/activeAccount"].contains($0) }
        return [
            CheckResult("the story ran to its end", run.failure == nil, detail: run.failure ?? ""),
            CheckResult(
                "nested instances are labelled with their chain",
                run.labels == [
                    "account#ada", "account#grace", "account#ada/scene#window-1", "account#grace/scene#window-2",
                    "account#grace/push#notification-7",
                ], detail: "\(run.labels)"),
            CheckResult(
                "each node runs once per instance (and the home feed once per active account)",
                repeated == ["app/activeAccount", "app/homeFeed"] || repeated == ["app/homeFeed"],
                detail: "started more than once: \(repeated)"),
            CheckResult(
                "the app's services are built once for every account, window and push",
                Set(appRebuilt).count == appRebuilt.count, detail: "\(appRebuilt)"),
            CheckResult(
                "the home view re-read the feed once per active account, woken by the switch",
                run.viewed.count == 2 && run.viewed[1].hasSuffix("for grace"), detail: "\(run.viewed)"),
            CheckResult(
                "switching the active account leaves the accounts' instances alone", run.accountsKept,
                detail: "kept: \(run.accountsKept)"),
            CheckResult(
                "logout closes the account's window before the account; the other account stays",
                run.closed == ["account#ada/scene#window-1", "account#ada"]
                    && run.accountsAfterLogout == ["account#grace"],
                detail: "closed \(run.closed); open accounts \(run.accountsAfterLogout)"),
            CheckResult(
                "an observer of the open accounts saw both accounts signed in, then the logout",
                run.observedAccounts.contains(["ada", "grace"])
                    && run.observedAccounts.contains(["grace"])
                    && (run.observedAccounts.firstIndex(of: ["ada", "grace"]) ?? .max)
                        < (run.observedAccounts.lastIndex(of: ["grace"]) ?? -1),
                detail: "\(run.observedAccounts)"),
        ]
    }
}
