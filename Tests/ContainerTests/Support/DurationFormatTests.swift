import Testing

@testable import Container

@Suite("DurationFormat: the one duration formatter")
struct DurationFormatTests {
    @Test("short: milliseconds with at most three decimals, seconds from ten seconds on")
    func short() {
        #expect(DurationFormat.short(.milliseconds(12)) == "12ms")
        #expect(DurationFormat.short(.microseconds(1_500)) == "1.5ms")
        #expect(DurationFormat.short(.microseconds(90)) == "0.09ms")
        #expect(DurationFormat.short(.nanoseconds(1_499)) == "0.001ms", "rounded to the microsecond")
        #expect(DurationFormat.short(.zero) == "0ms")
        #expect(DurationFormat.short(.milliseconds(9_999)) == "9999ms")
        #expect(DurationFormat.short(.milliseconds(12_345)) == "12.345s")
        #expect(DurationFormat.short(.microseconds(12_345_600)) == "12.346s", "half away from zero")
        #expect(DurationFormat.short(.microseconds(-2_500)) == "-2.5ms")
        #expect(Duration.milliseconds(4).formattedMilliseconds == DurationFormat.short(.milliseconds(4)))
    }

    @Test("clock: exactly three decimals; the trace numbers: up to six (s), three (ms) or three (µs) decimals")
    func fixedForms() {
        #expect(DurationFormat.clock(.microseconds(336)) == "0.336ms")
        #expect(DurationFormat.clock(.milliseconds(12)) == "12.000ms")
        #expect(DurationFormat.clock(.microseconds(-5)) == "-0.005ms")
        #expect(DurationFormat.seconds(.microseconds(3_007)) == "0.003007")
        #expect(DurationFormat.seconds(.seconds(1)) == "1")
        #expect(DurationFormat.milliseconds(.microseconds(4_250)) == "4.25")
        #expect(DurationFormat.microseconds(.nanoseconds(1_234_567)) == "1234.567")
        #expect(DurationFormat.microseconds(.microseconds(20)) == "20")
    }

    @Test("durations too large for the unit saturate instead of trapping (a timeout can come from a config)")
    func saturates() {
        let huge = Duration.seconds(Int64.max / 2)
        #expect(DurationFormat.wholeNanoseconds(huge) == .max)
        #expect(DurationFormat.wholeMicroseconds(huge) == .max)
        #expect(DurationFormat.wholeNanoseconds(.zero - huge) == .min)
        #expect(!DurationFormat.short(huge).isEmpty)
    }
}
