import Foundation
import Testing

@testable import Container

/// The randomized checker: random graphs, outcomes, callers, cancellations, resets and
/// shutdowns against a real container, every invariant checked after each case.
///
/// `CHECKER_CASES=N` runs N cases (default 5,000; 1,000 under ThreadSanitizer);
/// `CHECKER_SEED=S` replays one case; `CHECKER_FIRST_SEED=S` moves the window of seeds;
/// `CHECKER_DUMP=1` prints the trace of a failing traced case.
@Suite("Randomized checker (Coordinator rules)")
struct RandomizedCheckerTests {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    static var underThreadSanitizer: Bool { ThreadSanitizerHooks.acquire != nil }

    @Test("Random graphs, outcomes, callers, cancellations, resets and shutdowns keep every invariant")
    func randomCases() async throws {
        let seeds: [UInt64]
        if let seed = Self.environment["CHECKER_SEED"].flatMap(UInt64.init) {
            seeds = [seed]
        } else {
            let count =
                Self.environment["CHECKER_CASES"].flatMap(Int.init) ?? (Self.underThreadSanitizer ? 1_000 : 5_000)
            let first = Self.environment["CHECKER_FIRST_SEED"].flatMap(UInt64.init) ?? 1
            seeds = (0..<UInt64(count)).map { first + $0 }
        }
        var failures = 0
        // Violations by kind (digits removed), with the first seed of each: a summary of a failed run.
        var kinds: [String: (count: Int, seed: UInt64)] = [:]
        // Several cases at once: the cases are independent, and interleaving them varies timing.
        try await withThrowingTaskGroup(of: (UInt64, [String]).self) { group in
            var next = seeds.makeIterator()
            func addNext() {
                guard let seed = next.next() else { return }
                group.addTask {
                    let checkerCase: CheckerCase
                    do {
                        checkerCase = try CheckerCase(plan: CheckerPlan(seed: seed))
                    } catch {
                        return (seed, ["the case could not start: \(error)"])
                    }
                    do {
                        return (seed, try await checkerCase.run())
                    } catch {
                        // Where every coordinator stands, for a hang that does not come back on replay.
                        return (
                            seed,
                            ["the case did not finish: \(error)\n\(checkerCase.container.core.debugSummary())"]
                        )
                    }
                }
            }
            for _ in 0..<8 { addNext() }
            while let (seed, violations) = try await group.next() {
                for violation in violations {
                    let kind = String(violation.prefix { $0 != "\n" }.map { $0.isNumber ? "#" : $0 })
                    kinds[kind, default: (0, seed)].count += 1
                }
                if !violations.isEmpty {
                    failures += 1
                    if failures <= 5 {
                        Issue.record(
                            """
                            checker case failed; replay with CHECKER_SEED=\(seed)
                            \(CheckerPlan(seed: seed))
                            violations:
                              \(violations.joined(separator: "\n  "))
                            """)
                    }
                }
                addNext()
            }
        }
        let summary = kinds.sorted { $0.value.count > $1.value.count }
            .map { "\($0.value.count)× \($0.key) (first: CHECKER_SEED=\($0.value.seed))" }
        #expect(failures == 0, "\(failures) of \(seeds.count) cases failed:\n\(summary.joined(separator: "\n"))")
    }
}
