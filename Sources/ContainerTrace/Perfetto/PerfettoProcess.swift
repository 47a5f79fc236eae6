import Container

/// What the Perfetto renderer draws for the app or for one scope instance: a process whose
/// tracks (threads) hold the builds, the lifecycle (resets, teardowns, shutdown, the instance's
/// life), each caller's waits and each node's runs.
///
/// Spans are collected per track first and given threads at the end: a track whose spans
/// overlap (two concurrent callers with the same name) is split into lanes, so the spans of
/// every thread nest properly, as the format requires.
struct PerfettoProcess {
    /// A track: what a thread shows.
    enum Track: Hashable {
        case builds
        case lifecycle
        case caller(String)
        case node(String)

        /// Builds first, then the lifecycle, the callers and the nodes.
        var rank: Int {
            switch self {
            case .builds: 0
            case .lifecycle: 1
            case .caller: 2
            case .node: 3
            }
        }

        var name: String {
            switch self {
            case .builds: "builds"
            case .lifecycle: "lifecycle"
            case .caller(let name): "caller " + name
            case .node(let name): "node " + name
            }
        }
    }

    /// A span (with an end) or an instant (without one) on a track.
    struct Mark {
        let track: Track
        let name: String
        let category: String
        let start: Duration
        /// `nil` for an instant.
        let end: Duration?
        let colour: String?
        let args: ChromeTraceEvent.Args
    }

    let pid: Int
    let name: String
    private(set) var marks: [Mark] = []
    /// Tracks in the order of their first mark, within their rank.
    private var trackOrder: [Track] = []
    private var knownTracks: Set<Track> = []

    init(pid: Int, name: String) {
        self.pid = pid
        self.name = name
    }

    /// How many marks it holds: the index the next one gets.
    var markCount: Int { marks.count }

    /// Replaces the mark at `index` (on the same track).
    mutating func replace(at index: Int, with mark: Mark) { marks[index] = mark }

    mutating func add(_ mark: Mark) {
        if knownTracks.insert(mark.track).inserted { trackOrder.append(mark.track) }
        marks.append(mark)
    }

    /// The metadata, spans and instants of this process, each on its thread.
    func chromeEvents() -> [ChromeTraceEvent] {
        var events = [
            ChromeTraceEvent.metadata("process_name", pid: pid, .string(name)),
            ChromeTraceEvent.metadata("process_sort_index", pid: pid, .integer(pid)),
        ]
        var byTrack: [Track: [Mark]] = [:]
        for mark in marks { byTrack[mark.track, default: []].append(mark) }
        let tracks = trackOrder.enumerated().sorted { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }
        var nextThread = 1
        for (_, track) in tracks {
            let lanes = Self.lanes(byTrack[track] ?? [])
            for (lane, marks) in lanes.enumerated() {
                let tid = nextThread
                nextThread += 1
                let name = lane == 0 ? track.name : "\(track.name) (\(lane + 1))"
                events.append(.metadata("thread_name", pid: pid, tid: tid, .string(name)))
                events.append(.metadata("thread_sort_index", pid: pid, tid: tid, .integer(tid)))
                events += marks.map { chromeEvent($0, tid: tid) }
            }
        }
        return events
    }

    /// Splits a track's marks into lanes in which spans never partly overlap: each span goes to
    /// the first lane whose spans all ended by its start. Instants stay in the first lane.
    private static func lanes(_ marks: [Mark]) -> [[Mark]] {
        var lanes: [[Mark]] = [[]]
        var laneEnds: [Duration] = [.zero]
        var laneUsed = [false]
        // Sorted by start; marks that start together keep their trace order.
        let sorted = marks.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
        for (_, mark) in sorted {
            guard let end = mark.end else {
                lanes[0].append(mark)
                continue
            }
            if let lane = laneEnds.indices.first(where: { !laneUsed[$0] || laneEnds[$0] <= mark.start }) {
                lanes[lane].append(mark)
                laneEnds[lane] = end
                laneUsed[lane] = true
            } else {
                lanes.append([mark])
                laneEnds.append(end)
                laneUsed.append(true)
            }
        }
        return lanes
    }

    private func chromeEvent(_ mark: Mark, tid: Int) -> ChromeTraceEvent {
        ChromeTraceEvent(
            name: mark.name, category: mark.category, phase: mark.end == nil ? .instant : .complete, pid: pid,
            tid: tid, start: mark.start, duration: mark.end.map { max($0 - mark.start, .zero) }, colour: mark.colour,
            args: mark.args)
    }
}
