/// Whether a failure may go away on a retry.
public enum FailureKind: String, Sendable, Hashable, CustomStringConvertible {
    /// May succeed on a later attempt (a timeout, a busy resource). The container goes back to idle.
    case transient
    /// Will fail again the same way (bad configuration, corrupt data). The container's failure is sticky.
    case permanent

    public var description: String { rawValue }
}

/// An error that says itself whether it is transient or permanent.
///
/// This is the first thing the runtime asks when a provider throws (DESIGN §3.5).
public protocol ClassifiedError: Error {
    /// How the runtime should treat this error.
    var failureKind: FailureKind { get }
}

/// A node's provider did not finish within the node's `timeout`; always transient.
public struct ServiceTimeoutError: ClassifiedError, Sendable, CustomStringConvertible {
    /// The node that timed out.
    public let service: String
    /// The timeout that was exceeded.
    public let timeout: Duration

    public var failureKind: FailureKind { .transient }

    public var description: String {
        "service '\(service)' did not finish within its timeout of \(timeout.formattedMilliseconds)"
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

    /// `12ms`, `1.5ms`, `2.3s`: a short human form.
    package var formattedMilliseconds: String {
        let ms = milliseconds
        if ms >= 10_000 { return String(format3(ms / 1_000)) + "s" }
        return format3(ms) + "ms"
    }
}

/// At most three significant decimals, trailing zeros removed (no Foundation needed).
package func format3(_ value: Double) -> String {
    let scaled = (value * 1_000).rounded()
    let whole = Int(scaled) / 1_000
    var fraction = abs(Int(scaled) % 1_000)
    guard fraction != 0 else { return String(whole) }
    var digits = 3
    while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
    let padded = String(repeating: "0", count: digits - String(fraction).count) + String(fraction)
    return (value < 0 && whole == 0 ? "-" : "") + "\(whole).\(padded)"
}
