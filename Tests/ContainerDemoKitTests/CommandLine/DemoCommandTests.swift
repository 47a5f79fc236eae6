import Container
import ContainerDemoKit
import Testing

@Suite("Command line parsing")
struct DemoCommandTests {
    @Test("no arguments: the cold start of the default config, as text")
    func defaults() throws {
        let options = try DemoCommand.parse([])
        #expect(options == DemoOptions())
        #expect(options.scenario == .coldStart)
        #expect(options.trace == .text)
        #expect(options.configPath == nil)
        #expect(options.dataDirectory == nil)
        #expect(!options.showVersion)
    }

    @Test("every option, in both spellings")
    func everyOption() throws {
        let options = try DemoCommand.parse([
            "--config", "a b.json", "--trace=jsonl", "--callers", "1000", "--retries=3", "--output", "t.jsonl",
            "--no-color",
        ])
        #expect(options.configPath == "a b.json")
        #expect(options.trace == .jsonl)
        #expect(options.callers == 1000)
        #expect(options.retries == 3)
        #expect(options.outputPath == "t.jsonl")
        #expect(options.noColor)
        #expect(try DemoCommand.parse(["--scenario", "logout"]).scenario == .logout)
        #expect(try DemoCommand.parse(["--trace", "gantt"]).trace == .gantt)
        #expect(try DemoCommand.parse(["-h"]).showHelp)
        #expect(try DemoCommand.parse(["--data-dir", "/tmp/d"]).dataDirectory == "/tmp/d")
        #expect(try DemoCommand.parse(["--data-dir=my data", "--scenario", "all"]).dataDirectory == "my data")
        #expect(try DemoCommand.parse(["--version"]).showVersion)
    }

    @Test(
        "bad usage is a UsageError that says what to do",
        arguments: [
            (["--trace", "svg"], "expected one of: text, jsonl, dot, mermaid, gantt"),
            (["--scenario", "logot"], "did you mean 'logout'"),
            (["--calers", "3"], "did you mean '--callers'"),
            (["--callers", "-1"], "whole number"),
            (["--callers", "many"], "whole number"),
            (["--callers", "+5"], "whole number"),
            (["--retries", "+1"], "whole number"),
            (["--retries"], "--retries needs a value"),
            (["app.json"], "did you mean '--config app.json'"),
            (["--config", "x.json", "--scenario", "logout"], "built-in graph"),
            (["--no-color=yes"], "takes no value"),
            (["--version=2"], "takes no value"),
            (["--data-dir", "/tmp/d", "--scenario", "logout"], "writes none"),
            (["--data-dir="], "--data-dir needs a folder path"),
            (["--data-dri", "x"], "did you mean '--data-dir'"),
        ])
    func usageErrors(arguments: [String], message: String) {
        #expect {
            try DemoCommand.parse(arguments)
        } throws: { error in
            (error as? UsageError)?.message.contains(message) == true
        }
    }

    @Test("--help prints the usage and exits 0; bad usage prints to standard error and exits 2")
    func helpAndUsageExitCodes() async {
        let help = CapturedOutput()
        #expect(await DemoCommand.main(["--help"], output: help.output()) == 0)
        #expect(help.standardOutput.contains("--scenario NAME"))
        #expect(help.standardOutput.contains("EXIT STATUS"))

        let bad = CapturedOutput()
        #expect(await DemoCommand.main(["--trace", "svg"], output: bad.output()) == 2)
        #expect(bad.standardError.contains("unknown --trace value 'svg'"))
        #expect(bad.standardOutput.isEmpty)
    }

    @Test("--version prints the package version and exits 0; --help documents it and --data-dir")
    func version() async {
        let capture = CapturedOutput()
        #expect(await DemoCommand.main(["--version"], output: capture.output()) == 0)
        #expect(capture.standardOutput == "container-demo \(ServiceContainer.Version.current)\n")
        #expect(capture.standardError.isEmpty)
        #expect(DemoCommand.usage.contains("--version          Print the version"))
        #expect(DemoCommand.usage.contains("--data-dir PATH"))
        #expect(DemoCommand.usage.contains(DemoDataFolder.defaultPath))
    }

    @Test("colours only on a terminal without NO_COLOR")
    func colourDecision() {
        #expect(DemoOutput.wantsColors(isTerminal: true, noColor: nil))
        #expect(DemoOutput.wantsColors(isTerminal: true, noColor: ""))
        #expect(!DemoOutput.wantsColors(isTerminal: true, noColor: "1"))
        #expect(!DemoOutput.wantsColors(isTerminal: false, noColor: nil))
    }
}
