/// Well-formed UTF-8, byte by byte (The Unicode Standard, table 3-7): no stray continuation
/// bytes, overlong forms, surrogates or code points past U+10FFFF.
enum UTF8Validation {
    /// The length of the well-formed character starting at `index`, or `nil` when the bytes
    /// there are not UTF-8.
    static func sequenceLength(in bytes: [UInt8], at index: Int) -> Int? {
        let lead = bytes[index]
        func continues(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            index + offset < bytes.count && range.contains(bytes[index + offset])
        }
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return continues(1) ? 2 : nil
        case 0xE0: return continues(1, 0xA0...0xBF) && continues(2) ? 3 : nil
        case 0xE1...0xEC, 0xEE...0xEF: return continues(1) && continues(2) ? 3 : nil
        case 0xED: return continues(1, 0x80...0x9F) && continues(2) ? 3 : nil
        case 0xF0: return continues(1, 0x90...0xBF) && continues(2) && continues(3) ? 4 : nil
        case 0xF1...0xF3: return continues(1) && continues(2) && continues(3) ? 4 : nil
        case 0xF4: return continues(1, 0x80...0x8F) && continues(2) && continues(3) ? 4 : nil
        default: return nil
        }
    }

    /// `0xFF`.
    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count == 1 ? "0" + digits : digits)
    }
}
