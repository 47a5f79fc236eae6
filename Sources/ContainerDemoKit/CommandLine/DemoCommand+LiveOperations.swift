extension DemoCommand {
    /// The rules of `--reload` (the Reloading a graph article): it reloads the config of a config run, so it goes
    /// with the cold start (which it turns into the reload run) or `--scenario reload`; and
    /// `--scenario reload` with a `--config` of its own needs the new version to reload.
    static func checkLiveOperations(_ options: inout DemoOptions) throws(UsageError) {
        guard !options.showHelp else { return }
        if options.reloadPath != nil {
            guard options.scenario == .coldStart || options.scenario == .reload else {
                throw UsageError(
                    "--reload reloads the config of a config run; the '\(options.scenario.name)' story does not "
                        + "take one. Drop --scenario, or use --scenario reload")
            }
            options.scenario = .reload
        } else if options.scenario == .reload && options.configPath != nil {
            throw UsageError(
                "--scenario reload with --config needs the new version of the config: add --reload NEW.json "
                    + "(without both, it reloads Configs/reload/v1.json to v2.json)")
        }
    }
}
