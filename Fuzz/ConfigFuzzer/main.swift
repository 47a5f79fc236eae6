// libFuzzer entry point over the config loader: any bytes must give a config or a
// `ConfigError`, never a crash, a hang or unbounded memory. Built and run by
// `scripts/fuzz-config.sh` (not part of the package: `swift build` products are not
// instrumented for fuzzing).
import Container
import Foundation
import Plugins

/// One input: load it as a config file; on an error, render it as the demo would.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfigLoader(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    do {
        let config = try ConfigLoader.load(data: data, file: "/fuzz/config.json")
        // Touch what a successful load hands out, so a malformed value cannot hide.
        _ = config.graph.serviceNames.count + config.specs.count + config.entryPoints.count
    } catch {
        // Messages and locations are part of the contract: build them all.
        _ = error.description.utf8.count + error.issues.count
    }
    return 0
}
