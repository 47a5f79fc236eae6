/// The scope instances open on a coordinator: opening one, the values each leases, their ends
/// (see ``ChildBook``), and the observers of the open instances.
extension CoordinatorCore {
    /// Opens a scope instance of `scope` on this coordinator, on the scope's part of the graph
    /// as it is at this very transition.
    func openChild(scope: String, id: String, parameters: ScopeParameters) throws(ContainerError) -> CoordinatorCore {
        let label = "\(scope)#\(id)"
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

    /// Child `id` leases `values` (by their slots here; see ``ChildBook``); `false` when one was
    /// retired meanwhile.
    func lease(child id: Int, values: [(slot: Int, box: AnyServiceBox)]) -> Bool {
        transition { machine, _ in machine.leaseRequested(child: id, values: values) }
    }

    /// Child `id` no longer uses `boxes`.
    func released(child id: Int, boxes: [AnyServiceBox]) {
        perform(transition { machine, now in machine.childReleased(child: id, boxes: boxes, now: now) })
    }

    /// Child `id` ended what operation `operation` asked (see ``CoordinatorStateMachine/childEnded``).
    func childEnded(_ id: Int, reportedTo operation: Int?, records: [ResetReport.Teardown], closed: Bool) {
        perform(
            transition { machine, now in
                machine.childEnded(child: id, reportedTo: operation, records: records, closed: closed, now: now)
            })
        instancesChanged()
    }

    /// Wakes the observers of the open instances (each lists them itself, the newest).
    func instancesChanged() {
        if instanceChanges.hasConsumers { instanceChanges.offer(0).resume() }
    }
}
