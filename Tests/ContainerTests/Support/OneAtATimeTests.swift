import ContainerTesting
import Testing

@testable import Container

@Suite("One at a time")
struct OneAtATimeTests {
    @Test("10 concurrent operations never overlap, each runs once, and a thrown error reaches its caller only")
    func neverOverlap() async throws {
        let queue = OneAtATime()
        let active = Locked((now: 0, most: 0))
        let runs = Counter()
        let results = try await withTimeout(.seconds(60), "10 operations") {
            await withTaskGroup(of: Result<Int, ContainerError>.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        do throws(ContainerError) {
                            return .success(
                                try await queue.run { () async throws(ContainerError) -> Int in
                                    active.withLock { active in
                                        active.now += 1
                                        active.most = max(active.most, active.now)
                                    }
                                    // Suspends inside its turn: an overlapping operation would run now. (The
                                    // operations' suspensions add up, one after the other: on a loaded
                                    // machine under ThreadSanitizer each can wait long for the pool.)
                                    await Task.yield()
                                    runs.increment()
                                    active.withLock { $0.now -= 1 }
                                    if index % 7 == 0 { throw ContainerError.shutDown(generation: index) }
                                    return index
                                })
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(active.withLock { $0.most } == 1)
        #expect(runs.count == 10)
        let succeeded = results.compactMap { try? $0.get() }.sorted()
        #expect(succeeded == (0..<10).filter { $0 % 7 != 0 })
        #expect(results.count { (try? $0.get()) == nil } == 2)
    }
}
