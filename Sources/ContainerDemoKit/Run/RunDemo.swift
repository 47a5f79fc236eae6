import Container
import Foundation

/// Runs the demo as `options` say, writing to `output`, and returns the process exit status.
///
/// - 0: a snapshot was published (config run), or the story behaved as it says;
/// - 1: the build failed (config run), or the story did not behave as it says;
/// - 2: invalid config or usage (config errors are listed in full on standard error).
///
/// A config run whose trace broke one of the runtime's invariants (a bug in the container)
/// says so on standard error; its status still follows DESIGN §7.
///
/// Commentary goes with the trace for `--trace text`; for the machine-readable formats it
/// goes to standard error, so that standard output holds only the trace (or, with
/// `--output`, to standard output while the file holds the trace).
///
/// ```swift
/// let capture = CapturedOutput()
/// let status = await runDemo(DemoOptions(scenario: .logout), output: capture.output())
/// ```
public func runDemo(_ options: DemoOptions, output: DemoOutput) async -> Int32 {
    if options.showHelp {
        output.write(DemoCommand.usage + "\n")
        return 0
    }
    if options.showVersion {
        output.write("container-demo \(ContainerVersion.current)\n")
        return 0
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
    for scenario in scenarios {
        let report: ScenarioReport
        switch await run(scenario, options, output: output, note: note) {
        case .success(let made): report = made
        case .failure(let problem):
            output.writeError(problem.description + (problem.description.hasSuffix("\n") ? "" : "\n"))
            return 2
        }
        reports.append(report)
        // A single-document format (one JSON object) is written once, after the last run.
        if !options.trace.isSingleDocument {
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
        if status == 0 { status = report.exitCode }
    }
    if options.trace.isSingleDocument {
        let document = printer.perfetto(reports)
        if options.outputPath == nil { output.write(document) } else { trace = document }
    }
    if let path = options.outputPath {
        guard FileManager.default.createFile(atPath: path, contents: Data(trace.utf8)) else {
            output.writeError("container-demo: cannot write the trace to '\(path)'; check that its folder exists\n")
            return 2
        }
        output.write("trace (\(options.trace.name)) written to \(path)\n")
    }
    return status
}

/// Runs one scenario: the config run for cold start when a config is given or the default
/// config exists; a built-in story otherwise. `note` receives commentary (the data folder).
private func run(
    _ scenario: DemoScenario, _ options: DemoOptions, output: DemoOutput, note: (String) -> Void
) async -> Result<ScenarioReport, ConfigProblem> {
    let retries = options.retries ?? (scenario == .transient ? 1 : 0)
    let callers = options.callers ?? 0
    switch scenario {
    case .coldStart:
        let path = options.configPath ?? DemoOptions.defaultConfigPath
        // Overlays need their config: without it, loading says the file is missing.
        if options.configPath == nil && options.overlayPaths.isEmpty && !FileManager.default.fileExists(atPath: path) {
            output.writeError("note: \(path) not found; running the built-in app graph instead\n")
            return .success(await ColdStartStory.run(callers: callers, retries: retries))
        }
        let folder = DemoDataFolder.absolutePath(options.dataDirectory)
        let config: LoadedConfig
        switch ConfigSource.load(
            path: path, overlays: options.overlayPaths, pathRoots: DemoDataFolder.pathRoots(folder))
        {
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
        note("data folder: \(folder) (the config's $data; choose another with --data-dir PATH)\n")
        if !config.overlays.isEmpty { note("overlays: \(config.overlays.joined(separator: ", ")) (in this order)\n") }
        return .success(await ConfigRun.run(config, callers: options.callers, retries: retries))
    case .transient: return .success(await TransientStory.run(callers: callers, retries: retries))
    case .permanent: return .success(await PermanentStory.run(callers: callers, retries: retries))
    case .logout: return .success(await LogoutStory.run(callers: callers, retries: retries))
    default: return .success(await CancelStory.run(callers: callers))
    }
}
