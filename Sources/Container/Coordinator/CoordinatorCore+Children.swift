/// The scope instances open on a coordinator: opening one, the values each leases, their ends
/// (see ``ChildBook``), and the observers of the open instances.
extension CoordinatorCore {
    /// Opens a scope instance of `scope` on this coordinator, on the scope's part of the graph
    /// as it is at this very transition.
    func openChild(scope: String, id: String, parameters: ScopeParameters) throws(ContainerError) -> CoordinatorCore {
        if isClosingAbove { throw ContainerError.closed(self.label ?? "") }
        // A nested instance is named by its chain, and its providers read its parents' parameters too.
        let label = Self.label(of: scope, id: id, under: self.label)
        let parameters = link.map { parameters.inheriting($0.parameters) } ?? parameters
        let action = transition { machine, _ in
            machine.childOpened(scope: scope, label: label) { child, part, runTimes in
                CoordinatorCore(
                    part: part, runTimes: runTimes,
                    link: Link(
                        parent: self, child: child, scope: scope, id: id, label: label, parameters: parameters))
            }
        }
        switch action {
        case .opened(_, let child):
            instancesChanged()
            return child
        case .refused(let error): throw error
        }
    }

    /// `scope#id`, after `parent/` for a nested instance: one allocation of the exact size (an
    /// instance keeps it, and a string grown by appending keeps room to grow).
    static func label(of scope: String, id: String, under parent: String?) -> String {
        var label = ""
        label.reserveCapacity((parent.map { $0.utf8.count + 1 } ?? 0) + scope.utf8.count + 1 + id.utf8.count)
        if let parent {
            label += parent
            label += "/"
        }
        label += scope
        label += "#"
        label += id
        return label
    }

    /// Child `id` leases `values` (by their slots here; see ``ChildBook``).
    func lease(child id: Int, values: [(slot: Int, box: AnyServiceBox)]) -> Machine.LeaseAnswer {
        transition { machine, _ in machine.leaseRequested(child: id, values: values) }
    }

    /// Child `id` no longer uses `boxes`.
    func released(child id: Int, boxes: [AnyServiceBox]) {
        perform(transition { machine, now in machine.childReleased(child: id, boxes: boxes, now: now) })
    }

    /// Child `id` ended what operation `operation` asked (see ``CoordinatorStateMachine/childEnded``).
    func childEnded(
        _ id: Int, reportedTo operation: Int?, records: [ServiceContainer.ResetReport.Teardown], closed: Bool
    ) {
        perform(
            transition { machine, now in
                machine.childEnded(child: id, reportedTo: operation, records: records, closed: closed, now: now)
            })
        instancesChanged()
    }

    /// Child `id` began closing on its own: it is no longer listed open (its label stays taken
    /// until it has closed).
    func childClosing(_ id: Int) {
        let marked = transition { machine, _ in
            guard machine.children.isOpen(id) else { return false }
            machine.children.markClosing(id)
            return true
        }
        if marked { instancesChanged() }
    }

    /// Wakes the observers of the open instances (each lists them itself, the newest), here and
    /// up the parent chain (the app lists nested instances too).
    func instancesChanged() {
        if let feeds = feedsIfMade, feeds.instances.hasConsumers { feeds.instances.offer(0).resume() }
        link?.parent.instancesChanged()
    }

    /// The open (not closing) instances of `scope` opened here or, for a nested scope, from
    /// instances opened here: parents before their children, each level in the order it opened.
    func openInstances(of scope: String) -> [CoordinatorCore] {
        var found: [CoordinatorCore] = []
        for child in children.open {
            if let link = child.link, link.scopeUTF8.elementsEqual(scope.utf8) { found.append(child) }
            // Only a scope nested in the child's can be below it.
            if !child.declared.scopeParts.isEmpty { found += child.openInstances(of: scope) }
        }
        return found
    }

    /// The labels of the open instances here and below (`account#ada`, `account#ada/scene#window-1`),
    /// parents before their children.
    var openScopes: [String] {
        let (labels, open) = children
        guard open.contains(where: { !$0.declared.scopeParts.isEmpty }) else { return labels }
        var all: [String] = []
        for child in open {
            all.append(child.label ?? "")
            all += child.openScopes
        }
        return all
    }
}
