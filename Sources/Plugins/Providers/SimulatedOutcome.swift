/// What one run of a `simulated` node does: one word of its `outcomes` option.
public struct SimulatedOutcome: Sendable, Hashable, CustomStringConvertible {
    /// The word in the config file.
    public let word: String
    private init(_ word: String) { self.word = word }

    /// The run succeeds after `durationMs`.
    public static let ok = SimulatedOutcome("ok")
    /// The run fails with a transient ``SimulatedFailure`` after `durationMs`.
    public static let transient = SimulatedOutcome("transient")
    /// The run fails with a permanent ``SimulatedFailure`` after `durationMs`.
    public static let permanent = SimulatedOutcome("permanent")
    /// The run never finishes on its own: it ends only when cancelled (a timeout, a reset).
    public static let hang = SimulatedOutcome("hang")

    /// Every outcome, in documentation order.
    public static let all: [SimulatedOutcome] = [.ok, .transient, .permanent, .hang]

    /// The outcome a config word names, if any.
    public init?(word: String) {
        guard let known = Self.all.first(where: { $0.word == word }) else { return nil }
        self = known
    }

    /// The word.
    public var description: String { word }
}
