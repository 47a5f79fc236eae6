import ContainerDemoKit
import Foundation

// The command line is a thin shell over ContainerDemoKit, which the tests run in-process.
let status = await DemoCommand.main(Array(CommandLine.arguments.dropFirst()), output: .standard())
exit(status)
