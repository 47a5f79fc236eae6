/// Everything the command line can ask of the demo.
public struct DemoOptions: Sendable, Hashable {
    /// The config file the demo loads when nothing else is said.
    public static let defaultConfigPath = "Configs/app.json"
    /// Generic callers raced when a config lists no entry points and `--callers` is not given.
    public static let defaultGenericCallers = 4

    /// `--config PATH`: the services to run; `nil` means ``defaultConfigPath`` (with a built-in
    /// app graph as a fallback when that file does not exist).
    public var configPath: String?
    /// `--overlay FILE` (repeatable): overlays applied on top of the config, in the order given
    /// (the last one to set a key wins); see `Configs/README.md`, "Overlays".
    public var overlayPaths: [String]
    /// `--data-dir PATH`: the folder for the files a config run writes (the config's `$data` path
    /// root); `nil` means ``DemoDataFolder/defaultPath``, outside the working tree.
    public var dataDirectory: String?
    /// `--trace`: how to print the trace.
    public var trace: TraceFormat
    /// `--scenario`: which story to tell.
    public var scenario: DemoScenario
    /// `--callers N`: generic callers raced besides the entry points; `nil` for the default.
    public var callers: Int?
    /// `--retries N`: how many times a caller calls `start()` again after a transient build failure;
    /// `nil` for the story's default (1 for `transient`, 0 otherwise).
    public var retries: Int?
    /// `--output FILE`: write the trace there instead of standard output.
    public var outputPath: String?
    /// `--no-color`: never use ANSI colours (they are used only on a terminal without `NO_COLOR` anyway).
    public var noColor: Bool
    /// `--help`: print the usage and exit.
    public var showHelp: Bool
    /// `--version`: print ``ServiceContainer/Version/current`` and exit.
    public var showVersion: Bool
    /// `--reload PATH`: after the config's cold start, reload this new version of it (Reload article)
    /// and start again; `nil`: no reload (`--scenario reload` uses `Configs/reload/`).
    public var reloadPath: String? = nil
    /// `--status`: print `container.status` as JSON after each run.
    public var showStatus = false

    /// Options with every default: the cold-start story of `Configs/app.json`, as a text timeline.
    public init(
        configPath: String? = nil, trace: TraceFormat = .text, scenario: DemoScenario = .coldStart,
        callers: Int? = nil, retries: Int? = nil, outputPath: String? = nil, noColor: Bool = false,
        showHelp: Bool = false, dataDirectory: String? = nil, showVersion: Bool = false, overlayPaths: [String] = []
    ) {
        self.configPath = configPath
        self.overlayPaths = overlayPaths
        self.dataDirectory = dataDirectory
        self.trace = trace
        self.scenario = scenario
        self.callers = callers
        self.retries = retries
        self.outputPath = outputPath
        self.noColor = noColor
        self.showHelp = showHelp
        self.showVersion = showVersion
    }
}
