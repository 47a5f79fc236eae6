/// What ties a scope instance's coordinator to the app's: its name, id and parameters, the app
/// storage its builds get their app services from, and the app services it uses.
final class ScopeBinding: Sendable {
    /// The scope's name (`push`).
    let scope: String
    /// The instance's id (`notification-42`).
    let id: String
    /// `push#notification-42`: how the trace and the errors name the instance.
    let label: String
    let parameters: ScopeParameters
    /// The app's coordinator.
    let parent: CoordinatorStorage
    /// The app services the scope's part uses (its external nodes): a reset or reload of the app
    /// that retires any of them supersedes the instance.
    let uses: Set<String>

    init(scope: String, id: String, parameters: ScopeParameters, parent: CoordinatorStorage, uses: Set<String>) {
        self.scope = scope
        self.id = id
        self.label = "\(scope)#\(id)"
        self.parameters = parameters
        self.parent = parent
        self.uses = uses
    }

    /// The app's snapshot: joins (or starts) the app's build. A reset of the app while waiting
    /// supersedes that wait: it joins the new generation's build instead.
    func appSnapshot() async -> Result<AppServices, ContainerError> {
        while true {
            do {
                return .success(try await parent.start(label: label))
            } catch let error as ContainerError where error.code == .superseded && !Task.isCancelled {
                continue
            } catch let error as ContainerError {
                return .failure(error)
            } catch {
                // This build was cancelled (the instance was superseded or closed): its result is
                // discarded whatever it is.
                return .failure(.closed(label))
            }
        }
    }

    /// The values of `part`'s external nodes in the app snapshot `app`, by slot of `part`.
    func externalValues(of part: ServiceGraph, from app: AppServices) -> SlotValues {
        var values = SlotValues()
        for slot in part.builtCount..<part.nodes.count {
            if let appSlot = app.layout.slots[part.nodes[slot].name] { values[slot] = app.values[appSlot] }
        }
        return values
    }
}
