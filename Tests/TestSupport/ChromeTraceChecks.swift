public import Container
import Foundation
public import Testing

/// Checks Chrome trace-event JSON (what `--trace perfetto` writes) with Foundation's parser and
/// plain rules of the format, written independently of the renderer so a bug there cannot hide.
public enum ChromeTraceChecks {
    /// Tolerance for comparing microsecond times parsed as `Double` (the output has nanoseconds).
    static let epsilon = 0.0005

    /// A parsed `X` span.
    struct Span {
        let pid: Int
        let tid: Int
        let category: String
        let start: Double
        let end: Double
        let args: [String: Any]
    }

    /// Parses `text` as the JSON object form (`{"traceEvents": [...], "displayTimeUnit": "ms"}`);
    /// returns its events, or records an issue and returns `nil`.
    public static func parse(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]]? {
        let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8))
        guard let object = parsed as? [String: Any], let events = object["traceEvents"] as? [[String: Any]] else {
            Issue.record("not a Chrome trace JSON object: \(text.prefix(200))", sourceLocation: sourceLocation)
            return nil
        }
        #expect(object["displayTimeUnit"] as? String == "ms", sourceLocation: sourceLocation)
        return events
    }

    /// The format's rules: known phases; every `X` has `ts` and `dur` ≥ 0; every thread and
    /// process that has events is named; spans on one thread nest properly; every node span lies
    /// within the span of its build in the same process.
    public static func expectWellFormed(_ events: [[String: Any]], sourceLocation: SourceLocation = #_sourceLocation) {
        var threadNames: Set<[Int]> = []
        var processNames: Set<Int> = []
        var spans: [Span] = []
        var used: Set<[Int]> = []
        for event in events {
            guard let phase = event["ph"] as? String, let pid = event["pid"] as? Int, let tid = event["tid"] as? Int,
                event["name"] is String
            else {
                Issue.record("an event lacks ph, pid, tid or name: \(event)", sourceLocation: sourceLocation)
                continue
            }
            switch phase {
            case "M":
                let name = event["name"] as? String
                if name == "thread_name" { threadNames.insert([pid, tid]) }
                if name == "process_name" { processNames.insert(pid) }
            case "X":
                guard let ts = event["ts"] as? Double, let dur = event["dur"] as? Double else {
                    Issue.record("an X event lacks ts or dur: \(event)", sourceLocation: sourceLocation)
                    continue
                }
                #expect(ts >= 0 && dur >= 0, "negative ts or dur: \(event)", sourceLocation: sourceLocation)
                spans.append(
                    Span(
                        pid: pid, tid: tid, category: event["cat"] as? String ?? "", start: ts, end: ts + dur,
                        args: event["args"] as? [String: Any] ?? [:]))
                used.insert([pid, tid])
            case "i":
                #expect(
                    (event["ts"] as? Double ?? -1) >= 0, "instant without ts: \(event)", sourceLocation: sourceLocation)
                used.insert([pid, tid])
            default:
                Issue.record("unexpected phase \(phase)", sourceLocation: sourceLocation)
            }
        }
        for thread in used {
            #expect(threadNames.contains(thread), "thread \(thread) has no thread_name", sourceLocation: sourceLocation)
            #expect(
                processNames.contains(thread[0]), "process \(thread[0]) has no name", sourceLocation: sourceLocation)
        }
        expectNesting(spans, sourceLocation: sourceLocation)
        expectNodesInsideBuilds(spans, sourceLocation: sourceLocation)
    }

    /// On each thread, a span that starts inside another ends inside it.
    static func expectNesting(_ spans: [Span], sourceLocation: SourceLocation) {
        let threads = Dictionary(grouping: spans) { [$0.pid, $0.tid] }
        for (thread, spans) in threads {
            var stack: [Span] = []
            for span in spans.sorted(by: { ($0.start, -$0.end) < ($1.start, -$1.end) }) {
                while let top = stack.last, top.end <= span.start + epsilon { stack.removeLast() }
                if let top = stack.last {
                    #expect(
                        span.end <= top.end + epsilon,
                        "spans overlap without nesting on thread \(thread): \(top.args) and \(span.args)",
                        sourceLocation: sourceLocation)
                }
                stack.append(span)
            }
        }
    }

    /// Every node span (`cat` `node`) lies within the build span of its `args.build` in its process.
    static func expectNodesInsideBuilds(_ spans: [Span], sourceLocation: SourceLocation) {
        var builds: [String: Span] = [:]
        for span in spans where span.category == "build" {
            let key = "\(span.pid) g\(span.args["generation"] as? Int ?? -1) a\(span.args["attempt"] as? Int ?? -1)"
            #expect(builds[key] == nil, "two spans for build \(key)", sourceLocation: sourceLocation)
            builds[key] = span
        }
        for span in spans where span.category == "node" {
            let key = "\(span.pid) \(span.args["build"] as? String ?? "?")"
            guard let build = builds[key] else {
                Issue.record("node span \(span.args) has no build span", sourceLocation: sourceLocation)
                continue
            }
            #expect(
                span.start >= build.start - epsilon && span.end <= build.end + epsilon,
                "node span \(span.args) lies outside its build", sourceLocation: sourceLocation)
        }
    }

    /// Compares the output with the trace it was made from: every node run (`node.started` to its
    /// outcome) has exactly one node span, every build exactly one build span, every caller's wait
    /// one caller span, and every caller a track named after it, in the process of its scope
    /// instance (`name` for the app, `name · scope LABEL` for an instance).
    public static func expectMatches(
        _ chrome: [[String: Any]], events: [TraceEvent], name: String = "container",
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var pids: [String: Int] = [:]
        var threads: [Int: Set<String>] = [:]
        var spans: [String: Int] = [:]
        for event in chrome {
            let args = event["args"] as? [String: Any] ?? [:]
            guard let pid = event["pid"] as? Int else { continue }
            if event["name"] as? String == "process_name", let process = args["name"] as? String { pids[process] = pid }
            if event["name"] as? String == "thread_name", let thread = args["name"] as? String {
                threads[pid, default: []].insert(thread)
            }
            guard event["ph"] as? String == "X" else { continue }
            let subject = args["node"] as? String ?? args["caller"] as? String ?? ""
            let build =
                args["build"] as? String ?? "g\(args["generation"] as? Int ?? 0) a\(args["attempt"] as? Int ?? 0)"
            spans["\(pid) \(event["cat"] as? String ?? "") \(build) \(subject)", default: 0] += 1
        }
        var expected: [String: Int] = [:]
        var callers: [Int: Set<String>] = [:]
        for event in events {
            let process = event.scope.map { "\(name) · scope \($0)" } ?? name
            guard let pid = pids[process] else {
                Issue.record("no process named \(process)", sourceLocation: sourceLocation)
                return
            }
            switch event.kind {
            case .nodeStarted(let node, _, _, _):
                expected["\(pid) node \(event.build) \(node)", default: 0] += 1
            case .buildStarted:
                expected["\(pid) build \(event.build) ", default: 0] += 1
            case .callerJoined(let caller, _, _):
                expected["\(pid) caller \(event.build) \(caller)", default: 0] += 1
                callers[pid, default: []].insert(caller)
            default:
                break
            }
        }
        for (key, count) in expected {
            #expect(
                spans[key] == count, "\(key): \(spans[key] ?? 0) spans for \(count) runs",
                sourceLocation: sourceLocation)
        }
        let spanCount = spans.filter { !$0.key.contains(" lifecycle ") && !$0.key.contains(" scope ") }
        #expect(spanCount.count == expected.count, "spans without a run in the trace", sourceLocation: sourceLocation)
        for (pid, names) in callers {
            for caller in names {
                #expect(
                    threads[pid, default: []].contains("caller " + caller), "caller \(caller) has no track",
                    sourceLocation: sourceLocation)
            }
        }
    }
}
