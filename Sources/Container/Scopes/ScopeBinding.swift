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
    /// that retires any of them supersedes the instance. A reload may change them.
    private let usedServices: Locked<Set<String>>

    init(scope: String, id: String, parameters: ScopeParameters, parent: CoordinatorStorage, uses: Set<String>) {
        self.scope = scope
        self.id = id
        self.label = "\(scope)#\(id)"
        self.parameters = parameters
        self.parent = parent
        self.usedServices = Locked(uses)
    }

    /// See ``usedServices``.
    var uses: Set<String> { usedServices.withLock { $0 } }

    /// The app services a reloaded part uses.
    func setUses(_ uses: Set<String>) { usedServices.withLock { $0 = uses } }

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

    /// The values of `part`'s external nodes in the app snapshot `app`, by slot of `part`; an
    /// error when `app` lacks one (the app was reloaded while this build started: the reload
    /// rebuilds the instance on the new graph).
    func externalValues(of part: ServiceGraph, from app: AppServices) throws(ContainerError) -> SlotValues {
        var values = SlotValues(reservingSlots: part.nodes.count)
        for slot in part.builtCount..<part.nodes.count {
            let name = part.nodes[slot].name
            guard let appSlot = app.layout.slots[name],
                let box = app.values.value(at: appSlot), box.typeID == part.nodes[slot].provider.valueTypeID
            else {
                throw .superseded(
                    generation: app.generation, by: app.generation + 1,
                    detail: "scope instance '\(label)' "
                        + "uses app service '\(name)', which the app snapshot it got no longer has (a reload)")
            }
            values[slot] = box
        }
        return values
    }
}
