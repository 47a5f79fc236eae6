import TestSupport
import Testing

/// A model-checking driver of one of the coordinator's parts: each step plays one random event,
/// seeded, and checks the part against a model, collecting what it finds in `violations`.
protocol SeededDriver {
    /// What the checks found so far (empty: nothing wrong).
    var violations: [String] { get }
    /// The events played so far, one line each.
    var history: [String] { get }
    /// Plays one random event and checks the part.
    mutating func step() throws
    /// Ends what is still running and checks the final state.
    mutating func finish()
}

/// Plays `steps` steps of `driver` (seeded with `seed`), giving the cooperative pool back every 256
/// steps (other tests run beside these), then finishes it. Records the first violations with the
/// last `recent` events (and `replay`, how to run this seed alone) and returns `false`; `true`
/// when none were found.
func drive<Driver: SeededDriver>(
    _ driver: inout Driver, steps: Int, seed: UInt64, replay: String? = nil, recent: Int = 10,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> Bool {
    let seedName = replay.map { "seed \(seed) (\($0))" } ?? "seed \(seed)"
    for step in 0..<steps {
        if step % 256 == 0 { await Task.yield() }
        try driver.step()
        if !driver.violations.isEmpty {
            let events = driver.history.suffix(recent).joined(separator: "\n")
            fail("\(seedName), step \(step): \(driver.violations)\n\(events)", sourceLocation: sourceLocation)
            return false
        }
    }
    driver.finish()
    #expect(driver.violations.isEmpty, "\(seedName): \(driver.violations)", sourceLocation: sourceLocation)
    return driver.violations.isEmpty
}
