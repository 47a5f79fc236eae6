/// One try at building one generation: the generation and the attempt within it (both 1-based).
///
/// Every trace event, report and value carries the build attempt it belongs to; this is the one
/// representation of "generation + attempt" in the code base, and ``description`` its one text
/// form (`g2 a1`).
public struct BuildAttempt: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The generation (1 for a new container; each reset or reload adds one).
    public let generation: Int
    /// The attempt within the generation (1 for the first build of a generation).
    public let attempt: Int

    /// Creates a build attempt.
    public init(generation: Int, attempt: Int) {
        self.generation = generation
        self.attempt = attempt
    }

    /// `g2 a1`.
    public var description: String { "g\(generation) a\(attempt)" }

    /// Generations first, then attempts.
    public static func < (lhs: BuildAttempt, rhs: BuildAttempt) -> Bool {
        (lhs.generation, lhs.attempt) < (rhs.generation, rhs.attempt)
    }
}
