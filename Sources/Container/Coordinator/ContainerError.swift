/// Why ``ServiceContainer/start(as:)`` (or a reset) did not deliver.
public struct ContainerError: Error, Sendable, CustomStringConvertible {
    /// The kinds of container errors.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case buildFailed, superseded, shutDown, unknownService, notReady, attemptsExhausted
            case closed, unknownScope, scopeAlreadyOpen, invalidScope, invalidInput, notSynchronous
            case circularRequest
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The build failed; ``ContainerError/report`` says which nodes and how.
        public static let buildFailed = Code(.buildFailed)
        /// A reset started a new generation while the caller waited for the old one; call `start()` again.
        public static let superseded = Code(.superseded)
        /// The container was shut down.
        public static let shutDown = Code(.shutDown)
        /// A reset named a service the graph does not have.
        public static let unknownService = Code(.unknownService)
        /// A synchronous read found no published snapshot; `await start()` first.
        public static let notReady = Code(.notReady)
        /// The generation used every attempt its ``BuildPolicy/maxAttempts`` allows; the failure
        /// is sticky until `reset()`. ``ContainerError/report`` is the last attempt's.
        public static let attemptsExhausted = Code(.attemptsExhausted)
        /// The scope instance was closed (``ScopeInstance/close()``, or the app's shutdown).
        public static let closed = Code(.closed)
        /// ``ServiceContainer/openScope(_:id:parameters:)`` named a scope the graph does not declare.
        public static let unknownScope = Code(.unknownScope)
        /// A scope instance with the same scope and id is already open (or still closing: its
        /// `close()` has not returned yet; the message says which).
        public static let scopeAlreadyOpen = Code(.scopeAlreadyOpen)
        /// A scope instance's id or parameters are not allowed, or an entry point was run outside
        /// its scope.
        public static let invalidScope = Code(.invalidScope)
        /// ``ServiceContainer/supply(_:_:)`` named a service that is not an input, or gave a value
        /// of another type than the input's; nothing changed.
        public static let invalidInput = Code(.invalidInput)
        /// ``ServiceContainer/resolveNow(_:as:isolation:)`` named a service whose closure holds an
        /// asynchronous service (the message names it; nothing was built), or would have had to
        /// wait for another worker's node where it never waits: in a task, inside a provider, or
        /// on the main actor for a main-actor node (see <doc:LaunchTiers>).
        public static let notSynchronous = Code(.notSynchronous)
        /// A provider asked its own container for services whose answer needs the service it is
        /// making: it would have waited for itself forever. Refused in a debug build (see
        /// <doc:CoordinatorRules>); declare what the provider reads in its `dependsOn` instead.
        public static let circularRequest = Code(.circularRequest)

        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// What happened and what to do.
    public let message: String
    /// The generation concerned.
    public let generation: Int
    /// The failed build's report, for `.buildFailed`.
    public let report: BuildReport?

    /// For `.buildFailed`: transient (a later request for the same services retries) or
    /// permanent (sticky until `reset()`), as the failed services this caller needs classify
    /// it: an optional service's failure, or that of a service another request of the same build
    /// needed, does not change it. For `.attemptsExhausted`, transient (the last attempt's failure).
    public let failure: FailureKind?

    init(code: Code, message: String, generation: Int, report: BuildReport?, failure: FailureKind? = nil) {
        self.code = code
        self.message = message
        self.generation = generation
        self.report = report
        self.failure = failure
    }

    public var description: String { message }

    /// Who meets a failure again, and what clears it: the advice a build's error ends with.
    enum Advice {
        /// A graph without start policies: every `start()` needs every service.
        case everyStart
        /// A graph with start policies: the requests that need a failed service.
        case requestsNeedingIt
        /// A scope instance: its own requests (it has no reset; the app's supersedes it).
        case instance

        func afterFailure(_ kind: FailureKind) -> String {
            switch (self, kind) {
            case (.everyStart, .permanent):
                "the failure is permanent: every start() fails at once until reset()"
            case (.requestsNeedingIt, .permanent):
                "the failure is permanent: every request that needs it fails at once until reset(invalidating:) "
                    + "names it; requests that do not need it go on"
            case (.instance, .permanent):
                "the failure is permanent: every request of this instance that needs it fails at once; close the "
                    + "instance and open it again (a reset of what it uses up the chain supersedes it too)"
            case (.everyStart, .transient), (.instance, .transient):
                "the failure is transient: the next start() tries again, keeping the services that succeeded"
            case (.requestsNeedingIt, .transient):
                "the failure is transient: the next request that needs it tries again, keeping the services that "
                    + "succeeded"
            }
        }

        var afterExhaustion: String {
            switch self {
            case .everyStart: "every start() fails at once until reset() starts a new generation"
            case .requestsNeedingIt:
                "every request that needs it fails at once until reset(invalidating:) names it; requests that do "
                    + "not need it go on"
            case .instance:
                "every request of this instance that needs it fails at once; close the instance and open it again"
            }
        }
    }

    /// `isOptional` marks the failures of optional services, which fail no request; `advice`
    /// says who meets the failure again.
    /// `kind`: how the failure classifies for its callers (by default, as the report does).
    static func buildFailed(
        _ report: BuildReport, kind: FailureKind? = nil, advice: Advice = .everyStart,
        isOptional: (String) -> Bool = { _ in false }
    ) -> ContainerError {
        let kind = kind ?? report.failure ?? .transient
        let roots = report.failedNodes
        let cause =
            roots.isEmpty
            ? "a node was cancelled"
            : roots.map { name in
                let label = isOptional(name) ? "'\(name)' (optional: fails no request)" : "'\(name)'"
                if case .failed(let failure)? = report.outcome(of: name) { return "\(label): \(failure.message)" }
                return label
            }.joined(separator: "; ")
        return ContainerError(
            code: .buildFailed,
            message: "generation \(report.generation), attempt \(report.attempt) failed (\(kind)): \(cause); "
                + advice.afterFailure(kind),
            generation: report.generation, report: report, failure: kind)
    }

    static func attemptsExhausted(
        _ report: BuildReport, maxAttempts: Int, advice: Advice = .everyStart
    ) -> ContainerError {
        let roots = report.failedNodes.map { "'\($0)'" }.joined(separator: ", ")
        let cause = roots.isEmpty ? "" : " (last failed: \(roots))"
        return ContainerError(
            code: .attemptsExhausted,
            message: "generation \(report.generation) failed all \(maxAttempts) attempts its policy allows\(cause); "
                + advice.afterExhaustion,
            generation: report.generation, report: report, failure: .transient)
    }

    static func closed(_ instance: String) -> ContainerError {
        ContainerError(
            code: .closed,
            message: "scope instance '\(instance)' is closed; open a new instance to build its services again",
            generation: 0, report: nil)
    }

    static func unknownScope(_ name: String, known: [String]) -> ContainerError {
        let hint = NameSuggestion.hint(for: name, among: known)
        let list = known.isEmpty ? "the graph declares no scopes" : "declared scopes: \(known.joined(separator: ", "))"
        return ContainerError(
            code: .unknownScope, message: "cannot open scope '\(name)': it is not declared\(hint) (\(list))",
            generation: 0, report: nil)
    }

    /// `closing`: the instance's close has begun but not returned yet.
    static func scopeAlreadyOpen(_ instance: String, closing: Bool = false) -> ContainerError {
        ContainerError(
            code: .scopeAlreadyOpen,
            message: closing
                ? "scope instance '\(instance)' is closing; open it again once its close() has returned"
                : "scope instance '\(instance)' is already open; use it, or close it before opening it again",
            generation: 0, report: nil)
    }

    static func invalidScope(_ message: String) -> ContainerError {
        ContainerError(code: .invalidScope, message: message, generation: 0, report: nil)
    }

    static func superseded(generation: Int, by newGeneration: Int, detail: String? = nil) -> ContainerError {
        ContainerError(
            code: .superseded,
            message: (detail.map { $0 + ": " } ?? "") + "generation \(generation) was superseded by a reset to "
                + "generation \(newGeneration) before it was ready; call start() again for the new generation",
            generation: generation, report: nil)
    }

    static func shutDown(generation: Int) -> ContainerError {
        ContainerError(
            code: .shutDown, message: "the container was shut down; create a new container to build services again",
            generation: generation, report: nil)
    }

    @usableFromInline
    static func notReady(generation: Int) -> ContainerError {
        ContainerError(
            code: .notReady,
            message: "generation \(generation) has no published snapshot yet; await start() before reading "
                + "services synchronously",
            generation: generation, report: nil)
    }

    /// `supply` of `name`, which the graph lacks or which is not an input (or not of `type`).
    static func invalidInput(
        _ name: String, type: Any.Type, graph: ServiceGraph, generation: Int
    ) -> ContainerError {
        let inputs = graph.inputNames
        let list = inputs.isEmpty ? "the graph declares no input" : "its inputs: \(inputs.joined(separator: ", "))"
        let problem: String
        if let slot = graph.layout.slots[name] {
            let node = graph.nodes[slot]
            problem =
                node.isInput
                ? "input '\(name)' holds \(node.provider.valueType), not \(type); supply a value of that type"
                : "service '\(name)' is not an input (its provider is '\(node.provider.id)'); declare it "
                    + "ServiceSpec.input(_:) in code, or \"provider\": \"input\" in a config"
        } else {
            problem =
                "no service is named '\(name)'" + NameSuggestion.hint(for: name, among: inputs)
        }
        return ContainerError(
            code: .invalidInput, message: "cannot supply '\(name)': \(problem) (\(list)); nothing changed",
            generation: generation, report: nil)
    }

    /// A reset naming services this coordinator does not build: unknown ones, or `scoped` ones
    /// (by name, their scope), which its scope instances build.
    static func unknownServices(
        _ names: [String], known: [String], scoped: [String: String] = [:], generation: Int
    ) -> ContainerError {
        let described = names.map { name in
            if let scope = scoped[name] {
                return "'\(name)' (it lives in the instances of scope '\(scope)': close an instance and open it "
                    + "again, or reset what it reads here)"
            }
            return NameSuggestion.closest(to: name, among: known).map { "'\(name)' (did you mean '\($0)'?)" }
                ?? "'\(name)'"
        }
        let what = scoped.count == names.count ? "services not built here" : "unknown services"
        return ContainerError(
            code: .unknownService,
            message: "cannot reset \(what) \(described.joined(separator: ", ")); "
                + "the services are: \(known.joined(separator: ", "))",
            generation: generation, report: nil)
    }

    /// `resolveNow` of `name`, whose closure holds `node`, an asynchronous service.
    static func notSynchronous(_ name: String, because node: ServiceGraph.Node, generation: Int) -> ContainerError {
        let culprit =
            node.name == name ? "its provider" : "it depends on '\(node.name)', whose provider"
        return ContainerError(
            code: .notSynchronous,
            message: "cannot resolve '\(name)' now: \(culprit) \(ServiceGraph.asynchronousReason(node)); "
                + "await service(_:) or start(needs:) instead, or make it synchronous (a SynchronousServiceProvider, "
                + "without timeout or retries)",
            generation: generation, report: nil)
    }

    /// `resolveNow` of `name` from a task, which would have to wait for another worker.
    static func resolveNowWouldWait(_ name: String, generation: Int) -> ContainerError {
        ContainerError(
            code: .notSynchronous,
            message: "cannot resolve '\(name)' now: another worker is making a service it needs, and this caller "
                + "does not wait (a task, a provider, or the main actor for a main-actor service); await service(_:) "
                + "instead (or, inside a provider, declare '\(name)' in its dependsOn and read it from its context)",
            generation: generation, report: nil)
    }

    /// A request made by `node`'s provider whose answer would wait for `node` itself.
    static func circularRequest(from node: ServiceGraph.Node, generation: Int) -> ContainerError {
        ContainerError(
            code: .circularRequest,
            message: "the provider of '\(node.name)' asked its own container for services that need '\(node.name)' "
                + "itself (start(), service(_:) or start(needs:) inside a provider): the answer would wait for the "
                + "provider forever; declare what '\(node.name)' reads in its dependsOn and read it from its "
                + "ProviderContext (context[key]) instead",
            generation: generation, report: nil)
    }
}
