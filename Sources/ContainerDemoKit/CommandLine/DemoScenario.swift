/// Which story the demo tells (`--scenario`).
public struct DemoScenario: Sendable, Hashable, CustomStringConvertible {
    /// The option value, e.g. `cold-start`.
    public let name: String
    /// One line saying what the story shows.
    public let summary: String

    private init(_ name: String, _ summary: String) {
        self.name = name
        self.summary = summary
    }

    /// Whether the scenario runs a config the command line chooses (`--config`, `--overlay`,
    /// `--data-dir`); the other stories run their own graphs or files.
    var runsConfig: Bool { [.coldStart, .all, .scopes, .reload].contains(self) }

    /// Entry points race at cold start and share one build (the default; runs `--config`).
    public static let coldStart = DemoScenario(
        "cold-start", "entry points race at cold start and share one build")
    /// A node fails transiently; the callers retry and the retry reuses what had succeeded.
    public static let transient = DemoScenario(
        "transient", "a transient failure, then a retry that rebuilds only what failed")
    /// A node fails permanently; the failure is sticky until a reset starts a new generation.
    public static let permanent = DemoScenario(
        "permanent", "a permanent failure stays failed until reset() starts a new generation")
    /// Logout resets the session while entry points hold the old snapshot.
    public static let logout = DemoScenario(
        "logout", "logout rebuilds only the session; the old snapshot stays valid; teardown in reverse order")
    /// One caller cancels while the build is held; the others still get the snapshot.
    public static let cancel = DemoScenario(
        "cancel", "one caller cancels while the build runs; the others still get the snapshot")
    /// Two windows and a push arrive during the cold start of `Configs/app.json`; each gets a
    /// scope instance built on the app snapshot; logout supersedes the instances that use the session.
    public static let scopes = DemoScenario(
        "scopes", "windows and a push get scope instances; logout supersedes those using the session")
    /// A changed config is reloaded: only what changed is rebuilt, the rest carries over.
    public static let reload = DemoScenario(
        "reload", "a changed config is reloaded: only what changed is rebuilt, the rest carries over")
    /// Start-up in tiers on `Configs/launch.json`: `didFinishLaunching` reads the synchronous
    /// tier with `resolveNow`, launch builds the eager services only (three on the main actor), a
    /// cold-start push its own closure, `startDeferred()` the rest; an optional tracker fails
    /// nobody; push registration waits for the device token the app supplies later.
    public static let launch = DemoScenario(
        "launch", "start-up in tiers: synchronous, main actor, eager, deferred, lazy, optional, a late input")
    /// Two signed-in accounts on `Configs/accounts.json` (nested scopes): a window in each and a
    /// push for the second at cold start; a view follows the active account's feed across a
    /// switch; logging one account out closes its window first.
    public static let accounts = DemoScenario(
        "accounts", "nested scopes: accounts with windows and pushes, an observed account switch, a logout")
    /// Every story, one after the other.
    public static let all = DemoScenario("all", "every story, one after the other")

    /// The single stories, in the order `all` runs them.
    public static let stories: [DemoScenario] = [
        .coldStart, .transient, .permanent, .logout, .cancel, .scopes, .reload, .launch, .accounts,
    ]

    /// The scenario called `name`, if any.
    public init?(name: String) {
        guard let scenario = (Self.stories + [.all]).first(where: { $0.name == name }) else { return nil }
        self = scenario
    }

    public var description: String { name }
}
