extension CoordinatorCore {
    /// What ties a scope instance to the coordinator it was opened on. A class: the core reads it
    /// on every fetch and teardown, and a reference is one retain where its fields are several.
    final class Link: Sendable {
        let parent: CoordinatorCore
        /// The instance's id in its parent's book of children.
        let child: Int
        /// `push#notification-42` (`account#ada/scene#w1` nested): how the trace and the errors
        /// name the instance. It ends with `scope#id`: kept as offsets into it, an instance keeps
        /// one string instead of three.
        let label: String
        /// Where the scope's name and the id start in `label`'s UTF-8.
        private let scopeStart: Int32
        private let idStart: Int32
        let parameters: ScopeParameters

        /// The app's coordinator, at the top of the parent chain.
        var root: CoordinatorCore { parent.link?.root ?? parent }

        /// Whether a coordinator up the chain is shutting down or shut down (or closing, for an
        /// instance): from that step on the instance refuses new callers with `closed`, also
        /// before the close order reaches it.
        var isClosingAbove: Bool {
            var above: CoordinatorCore? = parent
            while let core = above {
                if core.published.isShutDown { return true }
                above = core.link?.parent
            }
            return false
        }

        /// The scope's name (`push`).
        var scope: String { String(decoding: scopeUTF8, as: UTF8.self) }
        /// The scope's name in `label`, to compare without making a string.
        var scopeUTF8: Substring.UTF8View {
            label.utf8.dropFirst(Int(scopeStart)).prefix(Int(idStart - scopeStart) - 1)
        }
        /// The instance's id (`notification-42`).
        var id: String { String(decoding: label.utf8.dropFirst(Int(idStart)), as: UTF8.self) }

        /// `label` must end with `scope#id`.
        init(parent: CoordinatorCore, child: Int, scope: String, id: String, label: String, parameters: ScopeParameters)
        {
            self.parent = parent
            self.child = child
            self.label = label
            let count = label.utf8.count
            idStart = Int32(count - id.utf8.count)
            scopeStart = Int32(count - id.utf8.count - 1 - scope.utf8.count)
            self.parameters = parameters
        }
    }
}

extension CoordinatorCore {
    /// Whether a coordinator up this instance's chain began to shut down (``Link/isClosingAbove``).
    @usableFromInline var isClosingAbove: Bool { link?.isClosingAbove ?? false }
}
