import ContainerTesting
import TestSupport
import Testing

@testable import Container

@Suite("Did-you-mean: the same suggestions as a full scan, in bounded work")
struct NameSuggestionTests {
    /// The first version's algorithm: every candidate by full edit distance, first closest wins.
    static func reference(_ name: String, _ candidates: [String]) -> String? {
        let target = Array(name.lowercased().utf8)
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != name {
            let distance = fullDistance(target, Array(candidate.lowercased().utf8))
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        guard let best else { return nil }
        return best.distance <= max(1, min(3, target.count / 3)) ? best.name : nil
    }

    static func fullDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var previous = Array(0...b.count)
        for i in a.indices {
            var current = [i + 1]
            for j in b.indices {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (a[i] == b[j] ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// Names over a small alphabet, so that near misses, ties and case differences are common.
    static func randomName(_ random: inout SplitMix64) -> String {
        let alphabet = Array("abcAB_é1")
        let length = Int.random(in: 0...10, using: &random)
        return String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] })
    }

    @Test("Random names: the bounded search answers exactly what the full scan answered")
    func sameAsFullScan() {
        var random = SplitMix64(seed: 0x5EED_0008)
        for round in 0..<1_000 {
            let candidates = (0..<Int.random(in: 0...12, using: &random)).map { _ in Self.randomName(&random) }
            let name = Self.randomName(&random)
            let expected = Self.reference(name, candidates)
            #expect(
                NameSuggestion.closest(to: name, among: candidates) == expected,
                "round \(round): '\(name)' among \(candidates)")
            var index = NameSuggestion.Index(candidates)
            #expect(index.closest(to: name) == expected, "round \(round), index: '\(name)' among \(candidates)")
        }
    }

    @Test("The banded distance equals the full one when within the bound, nil beyond it")
    func boundedDistance() {
        var random = SplitMix64(seed: 42)
        let rows = UnsafeMutableBufferPointer<Int>.allocate(capacity: 64)
        defer { rows.deallocate() }
        for _ in 0..<3_000 {
            let a = Array(Self.randomName(&random).utf8)
            let b = Array(Self.randomName(&random).utf8)
            let bound = Int.random(in: 0...4, using: &random)
            let full = Self.fullDistance(a, b)
            var work = 0
            let banded = a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    NameSuggestion.boundedDistance(a, b, bound: bound, rows: rows, work: &work)
                }
            }
            #expect(banded == (full <= bound ? full : nil), "\(a) \(b) bound \(bound)")
            #expect(work <= (bound * 2 + 1) * a.count)
            #expect(NameSuggestion.editDistance(a, b) == full)
        }
    }

    @Test("Known answers: typos, case, ties to the first candidate, the name itself never")
    func knownAnswers() {
        #expect(NameSuggestion.closest(to: "dependOn", among: ["dependsOn", "options"]) == "dependsOn")
        #expect(NameSuggestion.closest(to: "Session", among: ["session", "sessions"]) == "session")
        #expect(NameSuggestion.closest(to: "ab", among: ["ac", "ad"]) == "ac")
        #expect(NameSuggestion.closest(to: "ab", among: ["ad", "ac"]) == "ad")
        #expect(NameSuggestion.closest(to: "same", among: ["same"]) == nil)
        #expect(NameSuggestion.closest(to: "xyz", among: ["session", "database"]) == nil)
    }

    @Test("A budget bounds the work of any number of questions; past it there is no suggestion")
    func budgetBoundsTheWork() {
        // 5,000 names of one length: without a bound every question compares all of them.
        let names = (0..<5_000).map { "service\(10_000 + $0)" }
        var index = NameSuggestion.Index(names, budget: 500_000)
        #expect(index.closest(to: "servise10000") == "service10000")
        var answered = 1
        for number in 0..<5_000 {
            if index.closest(to: "missing\(10_000 + number)") != nil { answered += 1 }
        }
        #expect(index.remainingBudget == 0, "the questions should have used the budget up")
        #expect(answered == 1)
        // A question already answered costs nothing more; a new one past the budget gets none.
        #expect(index.closest(to: "servise10000") == "service10000")
        #expect(index.closest(to: "servise10001") == nil)
    }

    @Test("3,000 services each depending on a different undeclared name validate in bounded time")
    func manyUndeclaredNames() async throws {
        // The bound is generous: debug builds, ThreadSanitizer and busy machines are slow. (The
        // release demo validates 100,000 such services in about 2 s; the first version took 75 s
        // for 10,000 and did not finish 100,000 in 5 minutes.)
        let count = 3_000
        let (issues, elapsed) = try await offThePool {
            var registry = ProviderRegistry()
            try registry.register(Numbers())
            let specs = (0..<count).map {
                ServiceSpec(name: "svc\($0)", provider: "numbers", dependsOn: ["missing\($0)"])
            }
            let clock = ContinuousClock()
            let start = clock.now
            do {
                _ = try ServiceGraph(specs, registry: registry)
                return ([GraphError.Issue](), clock.now - start)
            } catch let error as GraphError {
                return (error.issues, clock.now - start)
            }
        }
        #expect(issues.count == count)
        #expect(issues.allSatisfy { $0.code == .missingDependency })
        // About 1 s in a debug build, 15 s under ThreadSanitizer. The first version took 128 s for
        // 2,000 such services in a debug build, quadratically more (about 290 s) for 3,000.
        #expect(elapsed < .seconds(60), "validation took \(elapsed)")
    }

    struct Numbers: ServiceProvider {
        let id = "numbers"
        func make(_ context: ProviderContext) async throws -> Int { 1 }
    }
}
