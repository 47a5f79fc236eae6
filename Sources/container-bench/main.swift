import Container
import Foundation
import Synchronization

// container-bench: the performance figures of issue 5 (see BENCHMARKS.md).
//
//     swift run -c release container-bench                 # every scenario, full sizes
//     swift run -c release container-bench --smoke         # a few seconds, tiny sizes, no thresholds (CI)
//     swift run -c release container-bench --filter hotpath --json out.json

/// One scenario of the benchmark.
struct Scenario: Sendable {
    let id: String
    let title: String
    let run: @Sendable (BenchSettings) async throws -> [Row]
}

let scenarios: [Scenario] = [
    Scenario(id: "hotpath", title: "1. Hot-path resolve of a built singleton", run: hotPathScenario),
    Scenario(id: "start", title: "2. start() when ready", run: startReadyScenario),
    Scenario(id: "joiners", title: "3. Joiners of one build held open", run: joinersScenario),
    Scenario(id: "scheduling", title: "4. Scheduling overhead, random DAG, no-work providers", run: schedulingScenario),
    Scenario(id: "criticalpath", title: "5. Critical-path efficiency", run: criticalPathScenario),
    Scenario(id: "config", title: "6. Config load + validation", run: configScenario),
    Scenario(id: "memory", title: "7. Memory across generations", run: memoryScenario),
    Scenario(id: "coldstart", title: "8. Cold start of the demo graph", run: coldStartScenario),
    Scenario(id: "readers", title: "9. Reset latency under reader threads (issue 8)", run: readerPressureScenario),
    Scenario(id: "scopes", title: "10. Scope instances (issue 10)", run: scopesScenario),
    Scenario(id: "reload", title: "11. Reload and reset(invalidating:) of one leaf (issue 12)", run: reloadScenario),
    Scenario(
        id: "changes", title: "12. Declaration comparison: reload of one changed leaf of 2,000 services",
        run: reloadComparisonScenario),
    Scenario(id: "demand", title: "13. Demand-driven start-up (issue 20)", run: demandScenario),
    Scenario(id: "observe", title: "14. Observers of a generation change (issue 22)", run: observationScenario),
    Scenario(id: "nested", title: "15. Nested scopes (issue 22)", run: nestedScopesScenario),
    Scenario(id: "sync", title: "16. Synchronous services (issue 21)", run: synchronousScenario),
    Scenario(id: "mainactor", title: "17. Main-actor services (issue 21)", run: mainActorScenario),
]

struct Options {
    var settings = BenchSettings.full
    var filter: String?
    var jsonPath: String?
    /// `--profile KIND`: repeat one operation untimed (for callgrind), see Profile.swift.
    var profile: String?
    var profileSize = 10_000
    var profileRepeats = 1
}

func parseOptions(_ arguments: [String]) -> Options {
    var options = Options()
    var iterator = arguments.makeIterator()
    func value(for flag: String) -> String {
        guard let value = iterator.next() else { usage("\(flag) needs a value") }
        return value
    }
    while let argument = iterator.next() {
        switch argument {
        case "--smoke": options.settings = .smoke
        case "--filter": options.filter = value(for: argument)
        case "--json": options.jsonPath = value(for: argument)
        case "--samples":
            guard let samples = Int(value(for: argument)), samples > 0 else {
                usage("--samples needs a positive number")
            }
            options.settings.samples = samples
        case "--profile": options.profile = value(for: argument)
        case "--inline-budget":
            // Read where it is used (`scopeInlineBudget`); checked here.
            guard let micros = Int(value(for: argument)), (0...1_000).contains(micros) else {
                usage("--inline-budget needs a number of microseconds from 0 to 1000")
            }
        case "--size", "--repeat":
            guard let number = Int(value(for: argument)), number > 0 else {
                usage("\(argument) needs a positive number")
            }
            if argument == "--size" { options.profileSize = number } else { options.profileRepeats = number }
        case "-h", "--help": usage(nil)
        default: usage("unknown argument '\(argument)'")
        }
    }
    return options
}

func usage(_ problem: String?) -> Never {
    if let problem { FileHandle.standardError.write(Data("container-bench: \(problem)\n".utf8)) }
    print(
        """
        usage: container-bench [--smoke] [--filter NAME] [--json FILE] [--samples N] [--inline-budget MICROSECONDS]
          --smoke        tiny sizes, a few seconds, no thresholds (what CI runs)
          --filter NAME  run only the scenarios whose id contains NAME: \(scenarios.map(\.id).joined(separator: ", "))
          --json FILE    also write every row as JSON to FILE
          --samples N    measured repetitions per figure (default 15; smoke 3)
          --inline-budget MICROSECONDS
                         the scope scenario's inline budget (default 20; 0 turns it off)
          --profile KIND [--size N] [--repeat K]
                         run one operation K times, untimed, for valgrind --tool=callgrind:
                         \(profileKinds.map(\.id).joined(separator: ", ")) (and each with -setup)
        """)
    exit(problem == nil ? 0 : 2)
}

/// Prints rows as an aligned table.
func printTable(_ rows: [Row]) {
    let header = ["scenario", "measurement", "median", "min", "max", "unit", "goal", "status"]
    let lines = rows.map { row in
        [
            row.scenario, row.name, format(row.median), format(row.min), format(row.max), row.unit, row.goal ?? "",
            row.met.map { $0 ? "met" : "MISSED" } ?? "",
        ]
    }
    let widths = header.indices.map { column in ([header] + lines).map { $0[column].count }.max() ?? 0 }
    func render(_ cells: [String]) -> String {
        cells.enumerated().map { column, cell in
            let pad = String(repeating: " ", count: widths[column] - cell.count)
            return (2...4).contains(column) ? pad + cell : cell + pad
        }.joined(separator: "  ")
    }
    print(render(header))
    print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
    for line in lines { print(render(line)) }
}

/// The machine line: cores, CPU model, toolchain.
func machineLine() -> String {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let model =
        cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
        .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "?" }
        ?? "unknown CPU"
    #if swift(>=6.3)
        let swift = "Swift 6.3+"
    #else
        let swift = "Swift < 6.3"
    #endif
    return "\(cores) cores, \(model), \(swift), \(settingsDescription)"
}

let options = parseOptions(Array(CommandLine.arguments.dropFirst()))
let settingsDescription =
    options.settings.smoke
    ? "smoke mode" : "\(options.settings.samples) samples after \(options.settings.warmup) warm-up"
let selected = scenarios.filter { options.filter == nil || $0.id.contains(options.filter!) }
guard !selected.isEmpty else { usage("no scenario matches '\(options.filter!)'") }

/// Runs the selected scenarios and prints (and writes) their rows.
func runSelected() async {
    print("container-bench: \(machineLine())")
    var allRows: [Row] = []
    for scenario in selected {
        print("\n== \(scenario.title) [\(scenario.id)]")
        let started = nanoseconds()
        do {
            let rows = try await scenario.run(options.settings)
            printTable(rows)
            allRows += rows
        } catch {
            print("scenario \(scenario.id) failed: \(error)")
            exit(1)
        }
        print("(\(DurationFormat.short(.nanoseconds(nanoseconds() - started))))")
    }

    if lookupFailures.load(ordering: .relaxed) > 0 {
        print("container-bench: \(lookupFailures.load(ordering: .relaxed)) lookups failed inside the measured loops")
        exit(1)
    }

    let missed = allRows.filter { $0.met == false }
    print(
        "\n\(allRows.count) figures; goals met: \(allRows.filter { $0.met == true }.count), missed: \(missed.count)"
            + " (checksum \(checksum.load(ordering: .relaxed) & 0xFFFF))")

    if let path = options.jsonPath {
        struct Output: Codable {
            let machine: String
            let command: [String]
            let rows: [Row]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            let data = try encoder.encode(Output(machine: machineLine(), command: CommandLine.arguments, rows: allRows))
            try data.write(to: URL(fileURLWithPath: path))
        } catch {
            print("could not write \(path): \(error)")
            exit(1)
        }
    }
}

// A profile's main thread waits on a semaphore instead of an async top level: an async `main`
// (and `dispatchMain()`) parks the main thread in libdispatch's `sigsuspend` with a read-only
// signal mask, which valgrind 3.19 (callgrind, the instruction counts in BENCHMARKS.md) cannot
// emulate and crashes on. The scenarios need the main actor (the main queue) to run, so they
// hand the main thread to Dispatch, and the process exits when they are done.
if let profile = options.profile {
    let finished = DispatchSemaphore(value: 0)
    Task.detached {
        await runProfile(profile, size: options.profileSize, repeats: options.profileRepeats)
        finished.signal()
    }
    finished.wait()
} else {
    Task.detached {
        await runSelected()
        exit(0)
    }
    dispatchMain()
}
