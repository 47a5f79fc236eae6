import Synchronization

/// Replaces secret strings (secret options, session tokens) with a placeholder in any
/// text the runtime prints: error messages in traces, reports and errors.
///
/// Secrets are registered from the graph's options at validation and by providers at run
/// time (``ProviderContext/registerSecret(_:)``).
public final class Redactor: Sendable {
    /// What a secret is replaced with.
    public static let placeholder = "<redacted>"

    private let secrets: Locked<Set<String>>

    /// Creates a redactor that knows `secrets`.
    public init(secrets: some Sequence<String> = []) {
        self.secrets = Locked(Set(secrets.filter { !$0.isEmpty }))
    }

    /// Adds a secret; empty strings are ignored.
    public func register(_ secret: String) {
        guard !secret.isEmpty else { return }
        _ = secrets.withLock { $0.insert(secret) }
    }

    /// `text` with every known secret replaced by ``placeholder``.
    public func redact(_ text: String) -> String {
        let known = secrets.withLock { $0 }
        guard !known.isEmpty else { return text }
        var result = text
        // Longest first, so a secret that contains another is replaced whole.
        for secret in known.sorted(by: { $0.count > $1.count }) where result.contains(secret) {
            result = result.replacing(secret, with: Self.placeholder)
        }
        return result
    }
}
