extension ServiceContainer {
    /// The version of this package, in one place: `container-demo --version` prints it, and
    /// `CHANGELOG.md`'s latest release heading must match it (a test checks both).
    ///
    /// ```swift
    /// logger.info("services from ServiceContainer \(ServiceContainer.Version.current)")
    /// ```
    public enum Version {
        /// The released version the sources are at or after, as `major.minor.patch`
        /// ([Semantic Versioning](https://semver.org)). Changes since it are listed under
        /// "Unreleased" in `CHANGELOG.md` until the next release raises this number.
        public static let current = "0.1.0"
    }
}
