import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Monotonic nanoseconds (CLOCK_MONOTONIC: one vDSO call, no allocation).
@inline(__always)
func nanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}

/// How long and how often to measure; `--smoke` shrinks everything.
struct BenchSettings: Sendable {
    /// Measured repetitions per figure (after the warm-up).
    var samples: Int
    /// Repetitions run and discarded before measuring.
    var warmup: Int
    /// Wall time one sample of a per-call loop aims at, in nanoseconds.
    var targetSampleNanos: Double
    /// Smoke mode: tiny sizes, no thresholds.
    var smoke: Bool

    static let full = BenchSettings(samples: 15, warmup: 2, targetSampleNanos: 25_000_000, smoke: false)
    static let smoke = BenchSettings(samples: 3, warmup: 1, targetSampleNanos: 1_000_000, smoke: true)

    /// `full` in a full run, `small` in smoke mode.
    func size(_ full: Int, smoke small: Int) -> Int { smoke ? small : full }
}

/// Median, min and max of a list of samples.
struct Summary: Codable, Sendable {
    var median: Double
    var min: Double
    var max: Double

    init(_ samples: [Double]) {
        precondition(!samples.isEmpty, "a summary needs at least one sample")
        let sorted = samples.sorted()
        let middle = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        min = sorted[0]
        max = sorted[sorted.count - 1]
    }
}

/// One line of the result table.
struct Row: Codable, Sendable {
    /// The scenario's id (`hotpath`, `joiners`, ...).
    var scenario: String
    /// What was measured.
    var name: String
    /// Unit of median/min/max.
    var unit: String
    var median: Double
    var min: Double
    var max: Double
    /// Number of measured samples.
    var samples: Int
    /// The goal, in words (`≤ 10 ns`), if this row has one.
    var goal: String?
    /// Whether the goal was met (`nil`: no goal, or smoke mode).
    var met: Bool?

    init(_ scenario: String, _ name: String, unit: String, _ samples: [Double], goal: String? = nil, met: Bool? = nil) {
        let summary = Summary(samples)
        self.scenario = scenario
        self.name = name
        self.unit = unit
        self.median = summary.median
        self.min = summary.min
        self.max = summary.max
        self.samples = samples.count
        self.goal = goal
        self.met = met
    }
}

/// Runs `body` warm-up + samples times and returns the measured results.
func repeatSamples(_ settings: BenchSettings, _ body: () throws -> Double) rethrows -> [Double] {
    for _ in 0..<settings.warmup { _ = try body() }
    return try (0..<settings.samples).map { _ in try body() }
}

/// The async form of ``repeatSamples(_:_:)``.
func repeatSamples(_ settings: BenchSettings, _ body: () async throws -> Double) async rethrows -> [Double] {
    for _ in 0..<settings.warmup { _ = try await body() }
    var samples: [Double] = []
    for _ in 0..<settings.samples { samples.append(try await body()) }
    return samples
}

/// A loop of `count` calls of the operation under test; returns a checksum of the results
/// so that the optimizer cannot delete the work.
typealias LoopBody = @Sendable (_ count: Int) -> UInt

/// Checksums of every loop, printed at the end so no result is dead.
let checksum = Atomic<UInt>(0)
/// Lookups that failed inside a measured loop (the loops cannot throw without changing what
/// they measure); checked after the run: any failure makes the whole run fail.
let lookupFailures = Atomic<Int>(0)

/// Per-call nanoseconds of `loop`, one task: calibrates the iteration count so that a
/// sample lasts about `targetSampleNanos`, then takes the samples.
func perCall(_ settings: BenchSettings, _ loop: LoopBody) -> [Double] {
    let count = calibrate(settings, loop)
    return repeatSamples(settings) {
        let start = nanoseconds()
        let sum = loop(count)
        let elapsed = nanoseconds() - start
        checksum.bitwiseXor(sum, ordering: .relaxed)
        return Double(elapsed) / Double(count)
    }
}

/// Iterations such that one run of `loop` takes about the target time.
func calibrate(_ settings: BenchSettings, _ loop: LoopBody) -> Int {
    var count = 1_000
    while true {
        let start = nanoseconds()
        checksum.bitwiseXor(loop(count), ordering: .relaxed)
        let elapsed = Double(nanoseconds() - start)
        if elapsed >= settings.targetSampleNanos / 8 || count >= 1 << 30 {
            return max(1_000, Int(Double(count) * settings.targetSampleNanos / max(elapsed, 1)))
        }
        count *= 8
    }
}

/// Per-call nanoseconds of `loop` run by `tasks` concurrent tasks released together;
/// a sample is the mean over the tasks of each task's own per-call time.
func perCallConcurrent(_ settings: BenchSettings, tasks: Int, _ loop: @escaping LoopBody) async -> [Double] {
    let count = calibrate(settings, loop)
    var samples: [Double] = []
    for index in 0..<(settings.warmup + settings.samples) {
        let sample = await concurrentSample(tasks: tasks, count: count, loop)
        if index >= settings.warmup { samples.append(sample) }
    }
    return samples
}

/// A start line for concurrent tasks: each arrives, then spins until all have (bounded,
/// in case the pool has fewer threads than tasks).
final class StartBarrier: Sendable {
    private let arrived = Atomic<Int>(0)
    private let parties: Int

    init(parties: Int) { self.parties = parties }

    func arriveAndWait() {
        arrived.add(1, ordering: .acquiringAndReleasing)
        let deadline = nanoseconds() + 50_000_000
        while arrived.load(ordering: .acquiring) < parties && nanoseconds() < deadline {}
    }
}

private func concurrentSample(tasks: Int, count: Int, _ loop: @escaping LoopBody) async -> Double {
    let barrier = StartBarrier(parties: tasks)
    return await withTaskGroup(of: Double.self) { group in
        for _ in 0..<tasks {
            group.addTask {
                barrier.arriveAndWait()
                let start = nanoseconds()
                let sum = loop(count)
                let elapsed = nanoseconds() - start
                checksum.bitwiseXor(sum, ordering: .relaxed)
                return Double(elapsed) / Double(count)
            }
        }
        var total = 0.0
        for await perCall in group { total += perCall }
        return total / Double(tasks)
    }
}

/// Async per-call nanoseconds: `loop` runs `count` awaited calls and returns a checksum.
func perCallAsync(_ settings: BenchSettings, _ loop: @escaping @Sendable (Int) async throws -> UInt) async throws
    -> [Double]
{
    var count = 1_000
    while true {
        let start = nanoseconds()
        checksum.bitwiseXor(try await loop(count), ordering: .relaxed)
        let elapsed = Double(nanoseconds() - start)
        if elapsed >= settings.targetSampleNanos / 8 || count >= 1 << 30 {
            count = max(1_000, Int(Double(count) * settings.targetSampleNanos / max(elapsed, 1)))
            break
        }
        count *= 8
    }
    return try await repeatSamples(settings) {
        let start = nanoseconds()
        let sum = try await loop(count)
        let elapsed = nanoseconds() - start
        checksum.bitwiseXor(sum, ordering: .relaxed)
        return Double(elapsed) / Double(count)
    }
}

/// The async loop run by `tasks` concurrent tasks released together.
func perCallAsyncConcurrent(
    _ settings: BenchSettings, tasks: Int, count: Int, _ loop: @escaping @Sendable (Int) async throws -> UInt
) async throws -> [Double] {
    var samples: [Double] = []
    for index in 0..<(settings.warmup + settings.samples) {
        let barrier = StartBarrier(parties: tasks)
        let sample = try await withThrowingTaskGroup(of: Double.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    barrier.arriveAndWait()
                    let start = nanoseconds()
                    let sum = try await loop(count)
                    let elapsed = nanoseconds() - start
                    checksum.bitwiseXor(sum, ordering: .relaxed)
                    return Double(elapsed) / Double(count)
                }
            }
            var total = 0.0
            for try await perCall in group { total += perCall }
            return total / Double(tasks)
        }
        if index >= settings.warmup { samples.append(sample) }
    }
    return samples
}

/// Resident set size of this process in bytes, from `/proc/self/statm` (0 where unavailable).
func residentBytes() -> Int {
    #if os(Linux)
        guard let file = fopen("/proc/self/statm", "r") else { return 0 }
        defer { fclose(file) }
        var size = 0
        var resident = 0
        guard
            withUnsafeMutablePointer(
                to: &size,
                { sizePointer in
                    withUnsafeMutablePointer(to: &resident) { residentPointer in
                        withVaList([sizePointer, residentPointer]) { vfscanf(file, "%ld %ld", $0) }
                    }
                }) == 2
        else { return 0 }
        return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
    #else
        return 0
    #endif
}

/// Bytes currently allocated by malloc, from glibc's `malloc_info` report (the system bytes
/// of every arena minus their free chunks, plus mmapped chunks); `nil` where unavailable.
func mallocedBytes() -> Int? {
    #if canImport(Glibc)
        typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_info") else { return nil }
        let mallocInfo = unsafeBitCast(symbol, to: MallocInfo.self)
        var buffer: UnsafeMutablePointer<CChar>?
        var length = 0
        guard let stream = open_memstream(&buffer, &length) else { return nil }
        _ = mallocInfo(0, stream)
        fclose(stream)
        guard let buffer else { return nil }
        defer { free(buffer) }
        let xml = String(cString: buffer)
        // The process-wide totals are the last elements of the report, after every <heap>.
        guard let tail = xml.components(separatedBy: "</heap>").last else { return nil }
        func total(_ prefix: String) -> Int? {
            guard let range = tail.range(of: prefix) else { return nil }
            let rest = tail[range.upperBound...]
            guard let sizeRange = rest.range(of: "size=\"") else { return nil }
            let digits = rest[sizeRange.upperBound...].prefix { $0.isNumber }
            return Int(digits)
        }
        guard let system = total("<system type=\"current\""), let fast = total("<total type=\"fast\""),
            let rest = total("<total type=\"rest\"")
        else { return nil }
        return system - fast - rest + (total("<total type=\"mmap\"") ?? 0)
    #else
        return nil
    #endif
}

/// A number for the table: 3 significant-ish digits.
func format(_ value: Double) -> String {
    if value >= 100 { return String(Int(value.rounded())) }
    if value >= 10 { return String(Double(Int((value * 10).rounded())) / 10) }
    return String(Double(Int((value * 100).rounded())) / 100)
}
