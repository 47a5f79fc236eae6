/// What the app's coordinator and every scope instance's share: the build policy, the tracer
/// and the redactor.
///
/// One object, referenced by each storage: a scope instance's storage held its own copy of
/// the policy (80 bytes) and two more references, in every one of possibly thousands of
/// instances.
final class CoordinatorEnvironment: Sendable {
    let policy: BuildPolicy
    let tracer: Tracer
    let redactor: Redactor

    init(policy: BuildPolicy, tracer: Tracer, redactor: Redactor) {
        self.policy = policy
        self.tracer = tracer
        self.redactor = redactor
    }
}
