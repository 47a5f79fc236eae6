import ContainerDemoKit
import Foundation

// The command line is a thin shell over ContainerDemoKit, which the tests run in-process.
// SIGINT and SIGTERM shut the running container down gracefully (exit 130 / 143).
let grace: Duration
do {
    grace = try DemoInterrupt.grace(from: ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data((error.description + "\n").utf8))
    exit(2)
}
let interrupt = DemoInterrupt(grace: grace)
interrupt.installSignalHandlers(output: .standard())
let status = await DemoCommand.main(Array(CommandLine.arguments.dropFirst()), output: .standard(), interrupt: interrupt)
exit(status)
