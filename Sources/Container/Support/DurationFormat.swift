/// The one way the code base writes a `Duration` as text: error messages, trace formats and
/// renderers, the demo and the benchmark all call these.
///
/// Everything is integer arithmetic on whole microseconds (or nanoseconds), rounded half away
/// from zero, without Foundation, so the text is the same on every platform. Durations too
/// large for the unit saturate instead of trapping: a duration from a config file can be
/// anything.
package enum DurationFormat {
    /// `12ms`, `1.5ms`, `0.25ms`, `12.5s`: a short human form with at most three decimals,
    /// in seconds from ten seconds on.
    package static func short(_ value: Duration) -> String {
        let micro = wholeMicroseconds(value)
        if micro.magnitude >= 10_000_000 {
            return fixedPoint(dividedRounding(micro, by: 1_000), decimals: 3) + "s"
        }
        return fixedPoint(micro, decimals: 3) + "ms"
    }

    /// `12.345ms`: milliseconds with exactly three decimals, for columns that line up.
    package static func clock(_ value: Duration) -> String {
        let micro = wholeMicroseconds(value)
        let whole = micro / 1_000
        let fraction = String((micro % 1_000).magnitude)
        return "\(micro < 0 && whole == 0 ? "-" : "")\(whole)."
            + String(repeating: "0", count: 3 - fraction.count) + fraction + "ms"
    }

    /// `0.001234`: seconds with up to six decimals (microseconds), trailing zeros removed.
    package static func seconds(_ value: Duration) -> String {
        fixedPoint(wholeMicroseconds(value), decimals: 6)
    }

    /// `12.5`: milliseconds with up to three decimals (microseconds), trailing zeros removed.
    package static func milliseconds(_ value: Duration) -> String {
        fixedPoint(wholeMicroseconds(value), decimals: 3)
    }

    /// `1234.567`: microseconds with up to three decimals (nanoseconds), trailing zeros removed.
    package static func microseconds(_ value: Duration) -> String {
        fixedPoint(wholeNanoseconds(value), decimals: 3)
    }

    /// `value` rounded to whole microseconds (saturating at `Int64`'s bounds).
    package static func wholeMicroseconds(_ value: Duration) -> Int64 {
        whole(value, unitsPerSecond: 1_000_000, attosecondsPerUnit: 1_000_000_000_000)
    }

    /// `value` rounded to whole nanoseconds (saturating at `Int64`'s bounds).
    package static func wholeNanoseconds(_ value: Duration) -> Int64 {
        whole(value, unitsPerSecond: 1_000_000_000, attosecondsPerUnit: 1_000_000_000)
    }

    /// `units / 10^decimals` written in decimal, without exponent and without trailing zeros.
    package static func fixedPoint(_ units: Int64, decimals: Int) -> String {
        var scale: UInt64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let magnitude = units.magnitude
        let whole = magnitude / scale
        var fraction = magnitude % scale
        let sign = units < 0 ? "-" : ""
        guard fraction != 0 else { return sign + String(whole) }
        var digits = decimals
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let text = String(fraction)
        return sign + String(whole) + "." + String(repeating: "0", count: digits - text.count) + text
    }

    private static func whole(_ value: Duration, unitsPerSecond: Int64, attosecondsPerUnit: Int64) -> Int64 {
        let parts = value.components
        // Round half away from zero on the attosecond part.
        let half = attosecondsPerUnit / 2
        let fraction = (parts.attoseconds + (parts.attoseconds >= 0 ? half : -half)) / attosecondsPerUnit
        let (scaled, overflow) = parts.seconds.multipliedReportingOverflow(by: unitsPerSecond)
        if overflow { return parts.seconds < 0 ? .min : .max }
        let (sum, overflowSum) = scaled.addingReportingOverflow(fraction)
        if overflowSum { return scaled < 0 ? .min : .max }
        return sum
    }

    /// `value / divisor`, rounded half away from zero.
    private static func dividedRounding(_ value: Int64, by divisor: Int64) -> Int64 {
        let quotient = value / divisor
        let remainder = value % divisor
        guard remainder.magnitude * 2 >= divisor.magnitude else { return quotient }
        return quotient + (value < 0 ? -1 : 1)
    }
}

extension Duration {
    /// Milliseconds as a `Double`.
    package var milliseconds: Double {
        let parts = components
        return Double(parts.seconds) * 1_000 + Double(parts.attoseconds) / 1e15
    }

    /// Seconds as a `Double`.
    package var seconds: Double { milliseconds / 1_000 }

    /// `12ms`, `1.5ms`, `12.5s`: ``DurationFormat/short(_:)``.
    package var formattedMilliseconds: String { DurationFormat.short(self) }
}
