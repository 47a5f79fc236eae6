import Container
import ContainerTrace
import Foundation

/// Runs the demo as `options` say, writing to `output`, and returns the process exit status.
///
/// - 0: a snapshot was published (config run), or the story behaved as it says;
/// - 1: the build failed (config run), or the story did not behave as it says;
/// - 2: invalid config or usage (config errors are listed in full on standard error).
///
/// A config run whose trace broke one of the runtime's invariants (a bug in the container)
/// says so on standard error; its exit status is still the README's (0 published, 1 failed).
///
/// Commentary goes with the trace for `--trace text`; for the machine-readable formats it
/// goes to standard error, so that standard output holds only the trace (or, with
/// `--output`, to standard output while the file holds the trace).
///
/// ```swift
/// let capture = CapturedOutput()
/// let status = await runDemo(DemoOptions(scenario: .logout), output: capture.output())
/// ```
///
/// With `--status`, each run's `container.status` follows as JSON (``StatusJSON``), last, where
/// the commentary goes: after the text trace on standard output, or on standard error for a
/// machine-readable trace on standard output.
///
/// A signal `interrupt` received (SIGINT, SIGTERM) shuts the running container down; the run
/// ends with the trace so far and the status is 130 or 143 (``DemoInterrupt``).
public func runDemo(_ options: DemoOptions, output: DemoOutput, interrupt: DemoInterrupt = DemoInterrupt()) async
    -> Int32
{
    if options.showHelp {
        output.write(DemoCommand.usage + "\n")
        return 0
    }
    if options.showVersion {
        output.write("container-demo \(ServiceContainer.Version.current)\n")
        return 0
    }
    // Opened first: a path that cannot be written stops the demo before anything runs.
    let traceFile: TraceFile?
    do {
        traceFile = try options.outputPath.map { path throws(TraceFileProblem) in try TraceFile.open(path) }
    } catch {
        output.writeError(error.description + "\n")
        return 2
    }
    let scenarios = options.scenario == .all ? DemoScenario.stories : [options.scenario]
    let printer = ReportPrinter(
        format: options.trace, colors: output.colors && !options.noColor && options.outputPath == nil,
        labelled: scenarios.count > 1)
    let commentaryGoesToError = options.trace.isMachineReadable && options.outputPath == nil
    let note = commentaryGoesToError ? output.writeError : output.write
    var trace = ""
    var reports: [ScenarioReport] = []
    var status: Int32 = 0
    // A single JSON Lines trace on standard output is written as it happens: a reader sees the
    // build start (and can stop the demo with a signal mid-build), and it holds what came before.
    let live: (any TraceSink)? =
        options.trace == .jsonl && options.outputPath == nil && scenarios.count == 1
        ? JSONLinesTraceSink { output.write($0) } : nil
    for scenario in scenarios where !interrupt.wasInterrupted {
        let report: ScenarioReport
        switch await run(scenario, options, output: output, note: note, interrupt: interrupt, live: live) {
        case .success(let made): report = made
        case .failure(let problem):
            traceFile?.discard()
            output.writeError(problem.description + (problem.description.hasSuffix("\n") ? "" : "\n"))
            return 2
        }
        reports.append(report)
        // A single-document format (one JSON object) is written once, after the last run.
        if !options.trace.isSingleDocument && !report.streamed {
            let text = printer.trace(report)
            if options.outputPath == nil {
                output.write(text + (options.trace == .text ? "\n" : ""))
            } else {
                trace += text
            }
        }
        if options.trace.isMachineReadable {
            let commentary = "=== \(report.title) ===\n" + printer.commentary(report)
            if commentaryGoesToError { output.writeError(commentary) } else { output.write(commentary) }
        }
        if let verdict = printer.verdict(report) { output.writeError(verdict) }
        if options.showStatus, let text = printer.status(report) {
            if commentaryGoesToError { output.writeError(text) } else { output.write(text) }
        }
        if status == 0 { status = report.exitCode }
    }
    if options.trace.isSingleDocument {
        let document = printer.perfetto(reports)
        if options.outputPath == nil { output.write(document) } else { trace = document }
    }
    if let traceFile {
        guard traceFile.write(trace) else {
            output.writeError("\(TraceFileProblem(path: traceFile.path))\n")
            return 2
        }
        output.write("trace (\(options.trace.name)) written to \(traceFile.path)\n")
    }
    if let signalled = interrupt.exitStatus {
        output.writeError(
            "container-demo: stopped by a signal: the container was shut down and torn down; exit status \(signalled)\n"
        )
        return signalled
    }
    return status
}

/// Runs one scenario: the config run for cold start when a config is given or the default
/// config exists; a built-in story otherwise. `note` receives commentary (the data folder).
private func run(
    _ scenario: DemoScenario, _ options: DemoOptions, output: DemoOutput, note: (String) -> Void,
    interrupt: DemoInterrupt, live: (any TraceSink)?
) async -> Result<ScenarioReport, ConfigProblem> {
    let retries = options.retries ?? (scenario == .transient ? 1 : 0)
    let callers = options.callers ?? 0
    switch scenario {
    case .coldStart:
        let path = options.configPath ?? DemoOptions.defaultConfigPath
        // Overlays need their config: without it, loading says the file is missing.
        if options.configPath == nil && options.overlayPaths.isEmpty && !FileManager.default.fileExists(atPath: path) {
            output.writeError(
                "note: \(NameRules.escapingControlCharacters(path)) not found; running the built-in app graph instead\n"
            )
            return .success(await ColdStartStory.run(callers: callers, retries: retries))
        }
        let config: LoadedConfig
        switch prepare(path, options, for: scenario, note: note) {
        case .success(let loaded): config = loaded.config
        case .failure(let problem): return .failure(problem)
        }
        let inputs = ConfigRun.awaitedInputs(config, genericCallers: options.callers)
        if !inputs.isEmpty {
            note(
                "note: the callers need the input\(inputs.count == 1 ? "" : "s") "
                    + inputs.map { "'\($0)'" }.joined(separator: ", ")
                    + ", which only an app supplies (ServiceContainer.supply); a config run supplies none, so they "
                    + "wait until a signal stops the run (Ctrl-C)\n")
        }
        return .success(
            await ConfigRun.run(
                config, callers: options.callers, retries: options.retries, interrupt: interrupt, live: live))
    case .scopes:
        // With --scenario all, --config is the cold start's; the story needs the scopes of app.json.
        let path =
            options.scenario == .scopes
            ? options.configPath ?? DemoOptions.defaultConfigPath
            : DemoOptions.defaultConfigPath
        if let skipped = skipped(scenario, missing: path, options, output: output) { return .success(skipped) }
        switch prepare(path, options, for: scenario, note: note) {
        case .success(let loaded):
            return await ScopesStory.run(loaded.config, retries: options.retries, interrupt: interrupt, live: live)
        case .failure(let problem): return .failure(problem)
        }
    case .reload:
        let explicit = options.scenario == .reload && options.reloadPath != nil
        let old = explicit ? options.configPath ?? DemoOptions.defaultConfigPath : ReloadStory.paths.old
        let new = explicit ? options.reloadPath ?? "" : ReloadStory.paths.new
        if let skipped = skipped(scenario, missing: old, options, output: output) { return .success(skipped) }
        let loaded: (config: LoadedConfig, roots: [String: String])
        switch prepare(old, options, for: scenario, note: note) {
        case .success(let made): loaded = made
        case .failure(let problem): return .failure(problem)
        }
        let outcome = await ReloadRun.run(
            old: loaded.config, newPath: new, pathRoots: loaded.roots, callers: options.callers,
            retries: options.retries, interrupt: interrupt, live: live)
        return outcome.map { outcome in
            var report = ReloadRun.report(
                outcome, scenario: .reload, isConfigRun: explicit,
                extraChecks: explicit ? [] : ReloadStory.checks(outcome))
            report.streamed = live != nil
            return report
        }
    case .launch:
        let path = options.scenario == .launch ? options.configPath ?? LaunchStory.path : LaunchStory.path
        if let skipped = skipped(scenario, missing: path, options, output: output) { return .success(skipped) }
        switch prepare(path, options, for: scenario, note: note) {
        case .success(let loaded):
            return await LaunchStory.run(loaded.config, retries: options.retries, interrupt: interrupt, live: live)
        case .failure(let problem): return .failure(problem)
        }
    case .accounts:
        let path = options.scenario == .accounts ? options.configPath ?? AccountsStory.path : AccountsStory.path
        if let skipped = skipped(scenario, missing: path, options, output: output) { return .success(skipped) }
        switch prepare(path, options, for: scenario, note: note) {
        case .success(let loaded):
            return await AccountsStory.run(loaded.config, retries: options.retries, interrupt: interrupt, live: live)
        case .failure(let problem): return .failure(problem)
        }
    case .transient: return .success(await TransientStory.run(callers: callers, retries: retries))
    case .permanent: return .success(await PermanentStory.run(callers: callers, retries: retries))
    case .logout: return .success(await LogoutStory.run(callers: callers, retries: retries))
    default: return .success(await CancelStory.run(callers: callers))
    }
}

/// Loads the config at `path` with the data folder as `$data`, checks that someone will ask
/// for its services, and creates the data folder (printed through `note` before anything runs).
/// The overlays apply to the config run: the story run alone, or the cold start of `all` (as
/// `--config` does; the other stories of `all` load their own files as shipped).
private func prepare(
    _ path: String, _ options: DemoOptions, for scenario: DemoScenario, note: (String) -> Void
) -> Result<(config: LoadedConfig, roots: [String: String]), ConfigProblem> {
    let folder = DemoDataFolder.absolutePath(options.dataDirectory)
    let roots = DemoDataFolder.pathRoots(folder)
    let overlays = options.scenario == scenario || scenario == .coldStart ? options.overlayPaths : []
    let config: LoadedConfig
    switch ConfigSource.load(path: path, overlays: overlays, pathRoots: roots) {
    case .success(let loaded): config = loaded
    case .failure(let problem): return .failure(problem)
    }
    if config.entryPoints.isEmpty && options.callers == 0 {
        return .failure(
            ConfigProblem(
                description:
                    "container-demo: \(config.file) lists no entry points and --callers is 0, so nobody would "
                    + "ask for the services; pass --callers N (N >= 1) or add \"entryPoints\" to the config"))
    }
    if let problem = DemoDataFolder.create(folder) { return .failure(problem) }
    // Printed before anything runs, so a user knows where the database goes.
    // A story that loads its own file takes no --data-dir: no hint to use one.
    note(
        "data folder: \(NameRules.escapingControlCharacters(folder)) (the config's $data"
            + (options.scenario.runsConfig ? "; choose another with --data-dir PATH)\n" : ")\n"))
    if !config.overlays.isEmpty { note("overlays: \(config.overlays.joined(separator: ", ")) (in this order)\n") }
    return .success((config, roots))
}

/// With `--scenario all` run away from the repository's root, the stories that need its
/// `Configs/` files are skipped with a note (the others still run); `nil` when the file is there.
private func skipped(
    _ scenario: DemoScenario, missing path: String, _ options: DemoOptions, output: DemoOutput
) -> ScenarioReport? {
    guard options.scenario == .all, !FileManager.default.fileExists(atPath: path) else { return nil }
    output.writeError(
        "note: \(path) not found (run from the repository's root); the \(scenario.name) story is skipped\n")
    return ScenarioReport(
        scenario: scenario, title: "\(scenario.name): skipped (\(path) not found)", graph: nil, events: [],
        reports: [], narrative: [], checks: [], published: false, isConfigRun: false)
}
