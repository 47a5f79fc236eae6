/// A 1-based line and column in a JSON text (columns count Unicode scalars).
struct SourcePosition: Sendable, Hashable, Comparable {
    /// 1-based line.
    var line: Int
    /// 1-based column.
    var column: Int

    static let start = SourcePosition(line: 1, column: 1)

    static func < (lhs: SourcePosition, rhs: SourcePosition) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}
