import Testing

@testable import Container

/// Against the fixed InputStore API (typed values); the same test against the original API passed.
@Suite("InputStore: waits, cancellation, close, types")
struct InputStoreTests {
    @Test("InputStore: cancel before, during, and racing a supply; no double resume, no stray waiter")
    func inputStoreCancellation() async throws {
        let store = InputStore()
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.value(of: "x", type: ObjectIdentifier(Int.self), generation: 1)
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        for _ in 0..<200 {
            let store = InputStore()
            let waiter = Task { try await store.value(of: "y", type: ObjectIdentifier(Int.self), generation: 1) }
            async let cancel: Void = waiter.cancel()
            async let supplied: InputStore.Supplied = store.supply("y", 1, type: ObjectIdentifier(Int.self))
            _ = await (cancel, supplied)
            _ = await waiter.result
        }
        store.close()
        await #expect(throws: InputStore.Closed.self) {
            try await store.value(of: "z", type: ObjectIdentifier(Int.self), generation: 1)
        }
    }
    @Test("a value of another type does not answer a wait; one of its type does")
    func typedValues() async throws {
        let store = InputStore()
        _ = store.supply("x", "text", type: ObjectIdentifier(String.self))
        let waiter = Task { try await store.value(of: "x", type: ObjectIdentifier(Int.self), generation: 1) }
        #expect(!store.isSupplied("x", type: ObjectIdentifier(Int.self)))
        let supplied = store.supply("x", 7, type: ObjectIdentifier(Int.self))
        #expect(supplied.replaced)
        #expect(try await waiter.value as? Int == 7)
    }
}
