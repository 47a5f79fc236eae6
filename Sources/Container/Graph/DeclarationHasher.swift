/// SipHash-1-3 with a 128-bit output (the SipHash-128 finalization), over 64-bit words, keyed
/// with random bits drawn once per process: the digest of ``DeclarationFingerprint``.
///
/// Swift's `Hasher` is the same function with a 64-bit output; two salted runs of it would
/// give 128 bits at twice the cost, and its generic `Hashable` path costs more per field than
/// these words (validating a 10,000-node graph computes 10,000 fingerprints).
struct DeclarationHasher {
    private var v0: UInt64
    private var v1: UInt64
    private var v2: UInt64
    private var v3: UInt64
    private var words: UInt64 = 0

    /// Drawn once per process: no config can be written to collide with another.
    private static let key = (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))

    init() {
        let (k0, k1) = Self.key
        v0 = k0 ^ 0x736f_6d65_7073_6575
        v1 = k1 ^ 0x646f_7261_6e64_6f6d ^ 0xee
        v2 = k0 ^ 0x6c79_6765_6e65_7261
        v3 = k1 ^ 0x7465_6462_7974_6573
    }

    @inline(__always)
    private mutating func round() {
        v0 &+= v1
        v1 = v1.rotateLeft(13) ^ v0
        v0 = v0.rotateLeft(32)
        v2 &+= v3
        v3 = v3.rotateLeft(16) ^ v2
        v0 &+= v3
        v3 = v3.rotateLeft(21) ^ v0
        v2 &+= v1
        v1 = v1.rotateLeft(17) ^ v2
        v2 = v2.rotateLeft(32)
    }

    /// One word of the message.
    @inline(__always)
    mutating func combine(_ word: UInt64) {
        v3 ^= word
        round()
        v0 ^= word
        words &+= 1
    }

    /// A string: its UTF-8 length, then its bytes, eight to a word (the last one padded with zeros).
    mutating func combine(_ text: String) {
        // In place (a native string, small ones included), not through a copy made mutable.
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { combine(bytes: UnsafeRawBufferPointer($0)) }
        if done == nil { Array(text.utf8).withUnsafeBytes { combine(bytes: $0) } }
    }

    private mutating func combine(bytes: UnsafeRawBufferPointer) {
        combine(UInt64(bytes.count))
        var offset = 0
        while offset &+ 8 <= bytes.count {
            combine(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            offset &+= 8
        }
        guard offset < bytes.count else { return }
        var last: UInt64 = 0
        withUnsafeMutableBytes(of: &last) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset...])) }
        combine(UInt64(littleEndian: last))
    }

    /// The 128-bit digest (the message's length in words is its last word).
    consuming func finalize() -> (UInt64, UInt64) {
        combine(words)
        v2 ^= 0xee
        round()
        round()
        round()
        let first = v0 ^ v1 ^ v2 ^ v3
        v1 ^= 0xdd
        round()
        round()
        round()
        return (first, v0 ^ v1 ^ v2 ^ v3)
    }
}

extension UInt64 {
    /// Masking shifts: one rotate instruction, where smart shifts (`<<`) would branch.
    @inline(__always)
    fileprivate func rotateLeft(_ count: UInt64) -> UInt64 { (self &<< count) | (self &>> (64 &- count)) }
}
