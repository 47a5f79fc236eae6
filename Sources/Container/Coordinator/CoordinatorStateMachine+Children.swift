/// The scope instances open on this coordinator: opening one, the values each leases, and
/// their ends.
extension CoordinatorStateMachine {
    /// Opens an instance of `scope` labelled `label`: `make` creates its coordinator on the
    /// scope's part of the graph of this very transition (a reload cannot slip in between).
    mutating func childOpened(
        scope: String, label: String, make: (_ id: Int, _ part: ServiceGraph, _ runTimes: NodeRunTimes) -> Child
    ) -> ChildOpenAction {
        if let refusal = refusal() { return .refused(refusal) }
        // Only the scopes nested right in this one (the app: the top-level scopes) open here.
        guard let part = declared.scopeParts[scope], let runTimes = scopeRunTimes[scope],
            declared.parentScope(of: scope) == declared.scope
        else {
            return .refused(.unknownScope(scope, known: declared.scopeNames))
        }
        guard let opened = children.open(label: label, scope: scope, make: { id in make(id, part, runTimes) }) else {
            return .refused(.scopeAlreadyOpen(label, closing: children.isClosing(label: label)))
        }
        return .opened(id: opened.id, child: opened.child)
    }

    /// Child `id` leases `boxes` before it builds on them. Nothing is leased when the child is
    /// closing or closed: its close order (every shutdown of this coordinator sends one, a
    /// graceful one too) is delivered right after the step that decided it, or was already.
    /// Nor when one value is no longer a value of this generation (a reset or reload retired it
    /// since the child got it): the child asks again, and gets the new values.
    mutating func leaseRequested(child id: Int, values: [(slot: Int, box: AnyServiceBox)]) -> LeaseAnswer {
        guard children.isOpen(id) else { return .childClosing }
        guard case .open = phase else { return .refused }
        for (slot, box) in values where state.values[slot] !== box { return .refused }
        children.lease(values.map(\.box), to: id)
        return .leased
    }

    /// Child `id` no longer uses `boxes` (its values built on them are torn down).
    mutating func childReleased(child id: Int, boxes: [AnyServiceBox], now: Duration) -> Lifecycle {
        children.release(boxes, by: id)
        return continueLifecycle(now: now)
    }

    /// Child `id` ended what operation `operation` asked of it (a supersession, a reload, a close),
    /// with these teardowns; `closed` when it is closed for good.
    mutating func childEnded(
        child id: Int, reportedTo operation: Int?, records: [ServiceContainer.ResetReport.Teardown], closed: Bool,
        now: Duration
    ) -> Lifecycle {
        if let operation { teardowns.child(id, reported: records, to: operation) }
        if closed {
            teardowns.childClosed(id, reportedTo: operation)
            children.remove(id)
        }
        return continueLifecycle(now: now)
    }

    /// What the retirement of `retired` (and a reload's scope changes) asks of the children, for
    /// `operation`: open children of `closing` scopes close, those of `reloading` scopes rebuild
    /// on their new part, any other that leases a retired value is superseded (closed, when it
    /// is closing already).
    mutating func childOrders(
        superseding retired: [AnyServiceBox], operation: Int, closing: Set<String> = [],
        reloading: Set<String> = []
    ) -> [ChildOrder] {
        guard !children.isEmpty else { return [] }
        let holders = Set(children.holders(of: retired))
        var orders: [ChildOrder] = []
        var retiredIDs: Set<ObjectIdentifier>?
        for entry in children.all {
            if entry.state == .closing {
                // Closing by another operation whose close may not have reached it yet: told
                // again when it holds a retired value, so it answers nothing built on one once
                // this step returns (a second close of a closed instance changes nothing).
                if holders.contains(entry.id) {
                    orders.append(ChildOrder(child: entry.child, id: entry.id, order: .close, operation: operation))
                }
            } else if closing.contains(entry.scope) {
                children.markClosing(entry.id)
                orders.append(ChildOrder(child: entry.child, id: entry.id, order: .close, operation: operation))
            } else if reloading.contains(entry.scope), let part = declared.scopeParts[entry.scope],
                let runTimes = scopeRunTimes[entry.scope]
            {
                orders.append(
                    ChildOrder(
                        child: entry.child, id: entry.id, order: .reload(part, runTimes), operation: operation))
            } else if holders.contains(entry.id) {
                // Made once, shared by every holder's order.
                if retiredIDs == nil { retiredIDs = Set(retired.map(ObjectIdentifier.init)) }
                orders.append(
                    ChildOrder(
                        child: entry.child, id: entry.id, order: .supersede(retired: retiredIDs ?? []),
                        operation: operation))
            }
        }
        return orders
    }

    /// This scope instance's parent retired `retired` (some of which it leases): a reset of what
    /// used them. The leased values that were retired go, with everything built on them (its own
    /// values and those it handed on: its nested instances that lease them are superseded); the
    /// parent's values that the parent carried over stay, and so do its values built on those
    /// alone, as an incremental reset of the app keeps what it does not invalidate.
    mutating func supersessionRequested(
        retired: Set<ObjectIdentifier>, waiter: OperationWaiter, now: Duration
    ) -> OperationAction {
        var leased: Set<Int> = []
        for slot in graph.builtCount..<graph.nodes.count {
            if let box = state.values[slot], retired.contains(ObjectIdentifier(box)) { leased.insert(slot) }
        }
        return resetRequested(invalidating: leased.isEmpty ? nil : leased, waiter: waiter, now: now)
    }

    /// The labels of the open children, in the order they opened.
    var openChildren: [String] { children.openLabels }

    /// The open (not closing) children of `scope` (`nil`: of every scope), in the order they opened.
    func openChildren(of scope: String?) -> [Child] {
        children.all.filter { ($0.scope == scope || scope == nil) && $0.state == .open }.map(\.child)
    }
}
