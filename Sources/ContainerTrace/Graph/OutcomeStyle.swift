import Container

/// How the graph renderers show a node's outcome: a short label and colours.
struct OutcomeStyle {
    /// The CSS-like class name used by Mermaid (`succeeded`, `failed`, ...), also the outcome's name.
    let name: String
    /// The node's second label line, e.g. `succeeded · 4.2ms`.
    let label: String
    /// Fill colour.
    let fill: String
    /// Border colour.
    let stroke: String

    /// The style of `node`'s outcome; `nil` means the node is not in the report (not built): its
    /// label then says why it may not be, a `policy` other than eager or being `optional`.
    init(_ node: BuildReport.NodeReport?, policy: StartPolicy? = nil, optional: Bool = false) {
        guard let node else {
            let reasons = [policy.flatMap { $0 == .eager ? nil : $0.rawValue }, optional ? "optional" : nil]
                .compactMap { $0 }
            let label = reasons.isEmpty ? "not built" : "not built (\(reasons.joined(separator: ", ")))"
            self.init(name: "pending", label: label, fill: "#eeeeee", stroke: "#9e9e9e")
            return
        }
        switch node.outcome {
        case .succeeded(let duration):
            self.init(
                name: "succeeded", label: "succeeded · \(duration.formattedMilliseconds)", fill: "#c8e6c9",
                stroke: "#2e7d32")
        case .reused:
            self.init(name: "reused", label: "reused", fill: "#bbdefb", stroke: "#1565c0")
        case .failed(let failure):
            let elapsed = OutcomeStyle.elapsed(node).map { " · \($0.formattedMilliseconds)" } ?? ""
            self.init(
                name: "failed", label: "failed (\(failure.kind))\(elapsed)", fill: "#ffcdd2", stroke: "#c62828")
        case .skipped:
            self.init(name: "skipped", label: "skipped", fill: "#fff9c4", stroke: "#f9a825")
        case .cancelled(let phase):
            self.init(name: "cancelled", label: "cancelled (\(phase))", fill: "#e0e0e0", stroke: "#616161")
        }
    }

    private init(name: String, label: String, fill: String, stroke: String) {
        self.name = name
        self.label = label
        self.fill = fill
        self.stroke = stroke
    }

    /// Every style name, in a fixed order (for class definitions).
    static let allNames = ["succeeded", "reused", "failed", "skipped", "cancelled", "pending"]

    /// The fill and stroke of a style name.
    static func colours(of name: String) -> (fill: String, stroke: String) {
        switch name {
        case "succeeded": ("#c8e6c9", "#2e7d32")
        case "reused": ("#bbdefb", "#1565c0")
        case "failed": ("#ffcdd2", "#c62828")
        case "skipped": ("#fff9c4", "#f9a825")
        case "cancelled": ("#e0e0e0", "#616161")
        default: ("#eeeeee", "#9e9e9e")
        }
    }

    /// Time between a node's start and its outcome, when it ran.
    static func elapsed(_ node: BuildReport.NodeReport) -> Duration? {
        guard let start = node.startedAt, let end = node.endedAt else { return nil }
        return end - start
    }
}

extension OutcomeStyle {
    /// The style of a node read back from a trace (a scope instance's node); `nil` means the
    /// build did not have the node.
    init(traced node: TracedBuild.Node?) {
        guard let node else {
            self.init(nil)
            return
        }
        let elapsed = node.started.flatMap { start in node.ended.map { " · \(($0 - start).formattedMilliseconds)" } }
        switch node.outcome {
        case .nodeSucceeded(_, let duration)?:
            self.init(name: "succeeded", label: "succeeded · \(duration.formattedMilliseconds)")
        case .nodeReused?:
            self.init(name: "reused", label: "reused")
        case .nodeFailed(_, let failure, _, let optional)?:
            let kind = optional ? "optional, " : ""
            self.init(name: "failed", label: "failed (\(kind)\(failure))\(elapsed ?? "")")
        case .nodeSkipped?:
            self.init(name: "skipped", label: "skipped")
        case .nodeCancelled(_, let phase)?:
            self.init(name: "cancelled", label: "cancelled (\(phase))")
        default:
            // Started, and the trace ends before its outcome.
            self.init(name: "pending", label: node.started == nil ? "not built" : "running")
        }
    }

    private init(name: String, label: String) {
        let colours = Self.colours(of: name)
        self.init(name: name, label: label, fill: colours.fill, stroke: colours.stroke)
    }
}
