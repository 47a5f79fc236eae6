extension BuildPolicy {
    /// The container's last word on whether an error is transient or permanent.
    ///
    /// The runtime classifies a provider's error in this order (see also <doc:CoordinatorRules>):
    /// 1. the error itself, when it conforms to ``ClassifiedError``;
    /// 2. the node's config (`"failure": "transient"` or `"permanent"` in the config file,
    ///    ``ServiceSpec/defaultFailure`` in code);
    /// 3. the node's provider (``ServiceProvider/classify(_:)``);
    /// 4. this classifier.
    ///
    /// Cancellation is never a failure: a provider that throws `CancellationError` because
    /// the build was cancelled ends `cancelled(whileRunning)` before any classifier is asked.
    ///
    /// The ``default`` classifier treats a timeout as transient and every other
    /// unclassified error as **transient** too, so an error nobody classified never makes the
    /// container's failure sticky; mark errors permanent where retrying cannot help.
    public struct ErrorClassifier: Sendable {
        private let classify: @Sendable (any Error) -> FailureKind

        /// A classifier from a closure.
        public init(_ classify: @escaping @Sendable (any Error) -> FailureKind) {
            self.classify = classify
        }

        /// Timeouts are transient, and so is every error that nothing else classified.
        public static let `default` = BuildPolicy.ErrorClassifier { _ in .transient }

        /// Every error nothing else classified is permanent; timeouts stay transient.
        public static let permanentUnlessClassified = BuildPolicy.ErrorClassifier { error in
            error is ServiceSpec.TimeoutError ? .transient : .permanent
        }

        /// The kind of `error`.
        public func callAsFunction(_ error: any Error) -> FailureKind { classify(error) }
    }
}
