import ContainerTesting
import Testing

@Suite("SplitMix64")
struct SplitMix64Tests {
    @Test("the reference outputs of SplitMix64 for seed 0; a seed gives the same sequence every time")
    func reference() {
        var random = SplitMix64(seed: 0)
        // The first outputs of the reference implementation (Vigna) seeded with 0.
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
        #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
        var first = SplitMix64(seed: 42)
        var second = SplitMix64(seed: 42)
        var other = SplitMix64(seed: 43)
        let a = (0..<8).map { _ in first.next() }
        #expect(a == (0..<8).map { _ in second.next() })
        #expect(a != (0..<8).map { _ in other.next() })
    }
}
