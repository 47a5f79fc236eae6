extension ServiceGraph {
    /// Every elementary cycle met by a depth-first search, each once, as `a -> b -> a`.
    static func findCycles(
        names: [String], dependencies: [[Int]], location: (Int) -> ConfigLocation?
    ) -> [GraphError.Issue] {
        enum Mark { case unvisited, onStack, done }
        var marks = [Mark](repeating: .unvisited, count: names.count)
        var issues: [GraphError.Issue] = []
        var reported = Set<[Int]>()
        // Iterative DFS: (node, index of the next dependency to visit).
        var stack: [(node: Int, next: Int)] = []
        for root in names.indices where marks[root] == .unvisited {
            stack.append((root, 0))
            marks[root] = .onStack
            while let top = stack.last {
                let edges = dependencies[top.node]
                if top.next == edges.count {
                    marks[top.node] = .done
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].next += 1
                let target = edges[top.next]
                switch marks[target] {
                case .unvisited:
                    marks[target] = .onStack
                    stack.append((target, 0))
                case .onStack:
                    // A node marked on the stack is on it, so the cycle is never empty.
                    guard let start = stack.lastIndex(where: { $0.node == target }) else { break }
                    let cycle = stack[start...].map(\.node)
                    // Rotate to start at the smallest slot so a cycle is reported once.
                    guard let pivot = cycle.indices.min(by: { cycle[$0] < cycle[$1] }) else { break }
                    let canonical = Array(cycle[pivot...] + cycle[..<pivot])
                    guard reported.insert(canonical).inserted else { break }
                    // A long cycle is shown by its ends: its message stays a line, whatever its length.
                    let ring = (canonical + [canonical[0]]).map { names[$0] }
                    let shown =
                        ring.count <= 12 ? ring : ring.prefix(6) + ["… (\(ring.count - 9) more)"] + ring.suffix(3)
                    let path = shown.joined(separator: " -> ")
                    issues.append(
                        .init(
                            code: .cycle,
                            message: "dependency cycle \(path); remove one of these dependencies",
                            service: names[canonical[0]], location: location(canonical[0])?.appending("dependsOn")))
                case .done:
                    break
                }
            }
        }
        return issues
    }
}
