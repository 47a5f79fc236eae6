import Dispatch

#if canImport(Darwin)
    import Darwin
#endif

/// Whether the calling thread is the main actor's: there, a synchronous caller that blocked to
/// wait for work of the main actor would wait forever, whatever its static isolation says (a
/// `nonisolated` function called from main-actor code runs on the main thread too).
enum MainThread {
    /// Whether the caller runs on the main thread (Apple platforms) or the main queue (Linux,
    /// where the main actor's jobs run on the main queue, which `dispatchMain()` may serve from
    /// another thread).
    static var isCurrent: Bool {
        #if canImport(Darwin)
            return pthread_main_np() != 0
        #else
            guard isMarked else { return false }
            return DispatchQueue.getSpecific(key: key) == true
        #endif
    }

    #if !canImport(Darwin)
        /// The main queue's mark.
        private static let key = DispatchSpecificKey<Bool>()
        /// Marks the main queue once, on first use.
        private static let isMarked: Bool = {
            DispatchQueue.main.setSpecific(key: key, value: true)
            return true
        }()
    #endif
}
