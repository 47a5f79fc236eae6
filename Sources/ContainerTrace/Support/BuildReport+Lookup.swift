import Container

extension BuildReport {
    /// Each node's report by name: one pass, for renderers that look up every node (and every
    /// edge's ends); ``BuildReport/node(_:)`` searches the list each time.
    func nodesByName() -> [String: NodeReport] {
        Dictionary(nodes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
