import Container
import Foundation
import Synchronization

// Scenario 9 (issue 8, defect 1): reset latency while real threads hammer the hot path. A reset
// replaces the published snapshot, and the slot must wait for readers still inside their few-
// instruction section before it releases the old one; with more busy threads than cores a reader
// can be preempted there. The wait must neither grow the reset's latency by more than about a
// scheduling quantum nor ever hold the state lock (a probe that needs the lock shows it).

/// One scheduling quantum of this kernel: the EEVDF base slice, 0.75 ms × (1 + log2 CPUs) with
/// the default logarithmic scaling (debugfs, where it could be read, is not mounted on the VM).
func schedulingQuantumNanos() -> Double {
    let cpus = max(1, ProcessInfo.processInfo.activeProcessorCount)
    return 750_000 * (1 + log2(Double(cpus)).rounded(.down))
}

/// Threads (not tasks: the cooperative pool has one thread per core) reading the hot path in a
/// loop: `current` and `resolve` alternately, until stopped.
final class ReaderThreads: Sendable {
    private let stopFlag = Atomic<Bool>(false)
    private let reads = Atomic<Int>(0)
    private let finished = DispatchSemaphore(value: 0)
    let count: Int

    init(count: Int, container: ServiceContainer) {
        self.count = count
        for _ in 0..<count {
            let thread = Thread { [self] in
                let sink = Sink()
                var local = 0
                while !stopFlag.load(ordering: .relaxed) {
                    if let services = container.current { sink.object = services }
                    if let service = try? container.resolve(BenchKeys.service) { sink.object = service }
                    local += 2
                }
                checksum.bitwiseXor(sink.checksum, ordering: .relaxed)
                reads.wrappingAdd(local, ordering: .relaxed)
                finished.signal()
            }
            thread.start()
        }
    }

    /// Stops every reader, waits for them, and returns how many reads they made.
    func stop() -> Int {
        stopFlag.store(true, ordering: .relaxed)
        for _ in 0..<count { finished.wait() }
        return reads.load(ordering: .relaxed)
    }
}

/// Scenario 9: reset latency p50/p99 with 0, 4, 16 and 32 reader threads.
func readerPressureScenario(_ settings: BenchSettings) async throws -> [Row] {
    var specs = [ServiceSpec(BenchKeys.service) { _ in BenchService(number: 9) }]
    for key in BenchKeys.fillers {
        specs.append(ServiceSpec(key, dependsOn: ["service"]) { _ in BenchService(number: 0) })
    }
    let resets = settings.size(1_000, smoke: 60)
    let readerCounts = settings.smoke ? [0, 4] : [0, 4, 16, 32]
    let quantum = schedulingQuantumNanos()
    var rows: [Row] = []
    var quietP99: Double?
    for readers in readerCounts {
        let container = try ServiceContainer(specs)
        _ = try await container.start()
        let threads = ReaderThreads(count: readers, container: container)
        // The probe: another task asks for something that needs the state lock (a reset of an
        // unknown service, refused at once, nothing reset) again and again while the resets run.
        // A refusal takes the lock once and completes without suspending, so its time is the
        // wait for the lock plus a few microseconds, unless a reader thread preempts it.
        let probing = Atomic<Bool>(true)
        let probe = Task.detached { () -> [Double] in
            var waits: [Double] = []
            while probing.load(ordering: .relaxed) {
                let start = nanoseconds()
                _ = try? await container.reset(invalidating: ["(probe)"])
                waits.append(Double(nanoseconds() - start))
                // A pause between probes (a timer, not an ordering), so the probe is not one more
                // busy thread competing with the resets for the two cores.
                try? await Task.sleep(for: .microseconds(200))
            }
            return waits
        }
        var latencies: [Double] = []
        var rebuilds: [Double] = []
        let warmup = settings.size(20, smoke: 5)
        let started = nanoseconds()
        for round in 0..<(warmup + resets) {
            let resetStart = nanoseconds()
            try await container.reset()
            let resetEnd = nanoseconds()
            _ = try await container.start()
            let rebuilt = nanoseconds()
            if round >= warmup {
                latencies.append(Double(resetEnd - resetStart))
                rebuilds.append(Double(rebuilt - resetEnd))
            }
        }
        let elapsed = Double(nanoseconds() - started)
        probing.store(false, ordering: .relaxed)
        let probes = await probe.value
        let reads = threads.stop()
        try await container.shutdown()

        let p50 = percentile(latencies, 0.50)
        let p99 = percentile(latencies, 0.99)
        let label = "\(readers) reader thread\(readers == 1 ? "" : "s")"
        if readers == 0 { quietP99 = p99 }
        var goal: String?
        var met: Bool?
        if readers > 0, let quietP99 {
            let limit = 2 * quietP99 + quantum
            goal = "≤ 2 × \(format(quietP99 / 1_000)) µs + quantum \(format(quantum / 1_000)) µs"
            met = settings.smoke ? nil : p99 <= limit
        }
        rows.append(Row("readers", "\(label): reset() latency p50", unit: "µs", [p50 / 1_000]))
        rows.append(Row("readers", "\(label): reset() latency p99", unit: "µs", [p99 / 1_000], goal: goal, met: met))
        rows.append(Row("readers", "\(label): reset() latency max", unit: "µs", [(latencies.max() ?? 0) / 1_000]))
        rows.append(
            Row(
                "readers", "\(label): rebuild (start()) after reset p99", unit: "µs",
                [percentile(rebuilds, 0.99) / 1_000]))
        rows.append(
            Row(
                "readers", "\(label): state-lock probe (a refused reset) p50, \(probes.count) probes", unit: "µs",
                [percentile(probes, 0.50) / 1_000]))
        rows.append(
            Row(
                "readers", "\(label): state-lock probe p99", unit: "µs", [percentile(probes, 0.99) / 1_000]))
        if readers > 0 {
            rows.append(
                Row(
                    "readers", "\(label): hot-path reads during the resets (current + resolve)", unit: "M/s",
                    [Double(reads) / elapsed * 1_000]))
        }
    }
    return rows
}

/// The `fraction` quantile of `values` (nearest rank).
func percentile(_ values: [Double], _ fraction: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}
