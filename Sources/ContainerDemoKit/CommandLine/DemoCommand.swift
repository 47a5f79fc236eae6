import Container

/// The `container-demo` command line: parsing, usage text, and the whole run.
///
/// ```swift
/// let status = await DemoCommand.main(["--scenario", "logout"], output: .standard())
/// ```
public enum DemoCommand {
    /// The `--help` text.
    public static let usage = """
        USAGE: container-demo [--config PATH] [--overlay FILE]... [--data-dir PATH] [--scenario NAME]
                              [--trace FORMAT] [--callers N] [--retries N] [--output FILE] [--status]
                              [--no-color]
               container-demo [--config OLD] --reload NEW [OPTIONS]
               container-demo --version

        Runs a service graph the way an app starts: several entry points (launch, scene,
        deep link, push) ask for the services concurrently, the container builds the
        graph once for all of them, and the demo prints the trace.

        OPTIONS:
          --config PATH      The config file to run (default: Configs/app.json).
          --overlay FILE     An overlay (profile) applied on top of the config before it is
                             validated: it changes, adds or removes services and policy
                             keys (see Configs/README.md, "Overlays"). Repeatable: applied
                             in the order given, the last one to set a key wins. Shipped:
                             Configs/overlays/test.json (an in-memory database with a known
                             session: the data folder is not written) and
                             Configs/overlays/offline.json (offline settings, no waiting).
                             With --scenario all, only the cold start's config gets them.
          --data-dir PATH    The folder for the files a config run writes: the config's
                             "$data" path root, where Configs/app.json keeps its SQLite
                             database (it counts the launches). Created when missing;
                             printed at the start of the run. Default, outside the
                             repository: \(DemoDataFolder.defaultPath)
          --scenario NAME    The story to tell (default: cold-start):
                               cold-start  \(DemoScenario.coldStart.summary)
                               transient   \(DemoScenario.transient.summary)
                               permanent   \(DemoScenario.permanent.summary)
                               logout      \(DemoScenario.logout.summary)
                               cancel      \(DemoScenario.cancel.summary)
                               scopes      \(DemoScenario.scopes.summary)
                               reload      \(DemoScenario.reload.summary)
                               launch      \(DemoScenario.launch.summary)
                               accounts    \(DemoScenario.accounts.summary)
                               all         \(DemoScenario.all.summary)
                             --config runs with cold-start (and all, for its cold start) and
                             scopes (a config with the scene and push scopes of app.json);
                             transient, permanent, logout and cancel use built-in graphs;
                             scopes uses Configs/app.json, reload Configs/reload/v1.json
                             and v2.json, launch Configs/launch.json, accounts
                             Configs/accounts.json (run them from the repository's root).
          --reload NEW       Reload: run --config (default Configs/app.json), reload the
                             container with the config file NEW, run the entry points again,
                             and print the reload report (added, removed, changed, rebuilt,
                             carried over, torn down) with the trace. Only what changed is
                             rebuilt. An invalid NEW is listed on standard error and exits 2;
                             nothing is reloaded and the old snapshot stays published.
          --trace FORMAT     text (default), jsonl (JSON Lines v1, see docs/trace-format.md;
                             written as it happens), dot (Graphviz), mermaid (flowchart),
                             gantt (Mermaid gantt), perfetto (Chrome trace JSON: open it in
                             ui.perfetto.dev or chrome://tracing; a track per caller, a span
                             per node run).
          --callers N        N generic callers (each calls start(): the eager services) race
                             besides the config's entry points, which ask for what they need
                             (default: 0, or 4 when the config lists no entry points).
          --retries N        The attempt budget: a generation tries each service in at most
                             1 + N builds, however many callers retry (BuildPolicy.maxAttempts;
                             without start policies, optional services or inputs: at most
                             1 + N builds). Callers
                             retry transient failures until they get the services or the
                             budget is used up (attemptsExhausted). Default: the config's
                             policy.maxAttempts, else 1 build (0 retries; 1 for transient).
          --output FILE      Write the trace to FILE instead of standard output.
          --status           After each run, print container.status as JSON (state,
                             generation, attempt, the last build's nodes, last failure, next
                             attempt, open scopes), as it was before the demo shut the
                             container down, after a line "\(ReportPrinter.statusHeading)".
                             It follows the run's commentary: on standard output with --trace
                             text or --output, on standard error when standard output holds a
                             machine-readable trace.
          --no-color         No ANSI colours (they are used only on a terminal, and never
                             when NO_COLOR is set).
          -h, --help         Show this help.
          --version          Print the version (container-demo \(ServiceContainer.Version.current)) and exit.

        SIGNALS:
          SIGINT, SIGTERM    Shut down gracefully: new callers are refused, a running build
                             has \(DemoInterrupt.defaultGrace.components.seconds) s to finish (then it is cancelled), every value is
                             torn down (scopes first), the trace so far is printed, and the
                             demo exits 130 (SIGINT) or 143 (SIGTERM). A second signal exits
                             at once. CONTAINER_DEMO_GRACE_MS sets the grace period (0 to
                             3600000 ms; any other value is a usage error).

        EXIT STATUS:
          0  a snapshot was published (with a story: the story behaved as it says)
          1  the build failed (with a story: the story did not behave as it says)
          2  invalid config or usage; config errors are listed on standard error
          130, 143  stopped by SIGINT or SIGTERM (after the teardown)
        """

    private static let valueOptions = [
        "--config", "--overlay", "--data-dir", "--scenario", "--trace", "--callers", "--retries", "--output",
        "--reload",
    ]
    private static let flagOptions = ["--no-color", "--help", "-h", "--version", "--status"]

    /// Parses the arguments (without the program name).
    ///
    /// Accepts `--option value` and `--option=value`; a later option overrides an earlier one,
    /// except `--overlay`, which adds one more overlay each time.
    /// - Throws: ``UsageError`` for an unknown option, a missing or malformed value, or a
    ///   combination the demo cannot run.
    public static func parse(_ arguments: [String]) throws(UsageError) -> DemoOptions {
        var options = DemoOptions()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if flagOptions.contains(name) {
                guard inlineValue == nil else { throw UsageError("\(name) takes no value") }
                switch name {
                case "--no-color": options.noColor = true
                case "--version": options.showVersion = true
                case "--status": options.showStatus = true
                default: options.showHelp = true
                }
                continue
            }
            guard valueOptions.contains(name) else {
                let shown = NameRules.visible(argument)
                if argument.isEmpty {
                    throw UsageError("unexpected empty argument; remove it (see --help)")
                }
                if !argument.hasPrefix("-") {
                    throw UsageError("unexpected argument '\(shown)'; did you mean '--config \(shown)'?")
                }
                let hint = NameSuggestion.closest(to: name, among: valueOptions + flagOptions)
                throw UsageError(
                    "unknown option '\(NameRules.visible(name))'" + (hint.map { "; did you mean '\($0)'?" } ?? ""))
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                    throw UsageError("\(name) needs a value")
                }
                value = arguments[index]
                index += 1
            }
            switch name {
            case "--config":
                guard !value.isEmpty else { throw UsageError("--config needs a file path") }
                options.configPath = value
            case "--overlay":
                guard !value.isEmpty else { throw UsageError("--overlay needs a file path") }
                options.overlayPaths.append(value)
            case "--data-dir":
                guard !value.isEmpty else { throw UsageError("--data-dir needs a folder path") }
                options.dataDirectory = value
            case "--scenario":
                guard let scenario = DemoScenario(name: value) else {
                    throw unknownValue(value, of: name, among: (DemoScenario.stories + [.all]).map(\.name))
                }
                options.scenario = scenario
            case "--trace":
                guard let format = TraceFormat(name: value) else {
                    throw unknownValue(value, of: name, among: TraceFormat.all.map(\.name))
                }
                options.trace = format
            case "--callers":
                options.callers = try count(value, of: name, maximum: 100_000)
            case "--retries":
                // The attempt budget is 1 + N builds (BuildPolicy.maxAttempts, at most 1,000).
                options.retries = try count(value, of: name, maximum: BuildPolicy.maximumAttempts - 1)
            case "--reload":
                guard !value.isEmpty else { throw UsageError("--reload needs a file path") }
                options.reloadPath = value
            default:  // --output
                guard !value.isEmpty else { throw UsageError("--output needs a file path") }
                options.outputPath = value
            }
        }
        try checkLiveOperations(&options)
        let runsConfig = options.scenario.runsConfig
        if options.configPath != nil && !runsConfig && !options.showHelp {
            throw UsageError(
                "--config runs the cold-start race; the '\(options.scenario.name)' story uses its own built-in "
                    + "graph. Drop --config, or use --scenario cold-start")
        }
        if !options.overlayPaths.isEmpty && !runsConfig && !options.showHelp {
            throw UsageError(
                "--overlay changes the config of a config run; the '\(options.scenario.name)' story uses a built-in "
                    + "graph. Drop --overlay, or use --scenario cold-start")
        }
        if options.dataDirectory != nil && !runsConfig && !options.showHelp {
            throw UsageError(
                "--data-dir holds the files of config runs; the '\(options.scenario.name)' story uses a built-in "
                    + "graph that writes none. Drop --data-dir, or use --scenario cold-start")
        }
        return options
    }

    /// Parses `arguments`, runs the demo and returns its exit status; usage errors print to
    /// standard error and return 2. A signal `interrupt` received ends the run gracefully
    /// (see ``DemoInterrupt``).
    public static func main(
        _ arguments: [String], output: DemoOutput, interrupt: DemoInterrupt = DemoInterrupt()
    ) async -> Int32 {
        let options: DemoOptions
        do {
            options = try parse(arguments)
        } catch {
            output.writeError(error.description + "\n")
            return 2
        }
        return await runDemo(options, output: output, interrupt: interrupt)
    }

    private static func unknownValue(_ value: String, of option: String, among names: [String]) -> UsageError {
        let hint = NameSuggestion.closest(to: value, among: names).map { " (did you mean '\($0)'?)" } ?? ""
        return UsageError(
            "unknown \(option) value '\(NameRules.visible(value))'\(hint); expected one of: \(names.joined(separator: ", "))"
        )
    }

    private static func count(_ value: String, of option: String, maximum: Int) throws(UsageError) -> Int {
        guard let number = UsageError.wholeNumber(value) else {
            throw UsageError("\(option) needs a whole number of 0 or more, not '\(NameRules.visible(value))'")
        }
        guard number <= maximum else { throw UsageError("\(option) \(number) is more than the limit of \(maximum)") }
        return number
    }
}
