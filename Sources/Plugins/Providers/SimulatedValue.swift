/// The value of a `simulated` node: which node it is and which run made it.
public struct SimulatedValue: Sendable, Hashable, CustomStringConvertible {
    /// The node's name.
    public let node: String
    /// The run of the node's provider within its generation that succeeded (1-based).
    public let run: Int
    /// The generation that built it.
    public let generation: Int

    /// Creates a value.
    public init(node: String, run: Int, generation: Int) {
        self.node = node
        self.run = run
        self.generation = generation
    }

    /// `node (run 2)`.
    public var description: String { "\(node) (run \(run))" }
}
