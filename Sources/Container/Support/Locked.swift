import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// State guarded by a `Synchronization.Mutex`, visible to ThreadSanitizer.
///
/// On Linux, `Mutex` synchronizes inside the (uninstrumented) standard library, so
/// ThreadSanitizer cannot see its happens-before edges and reports every guarded access
/// as a race. `Locked` keeps the state outside the mutex and, when the process runs under
/// ThreadSanitizer, tells it about the lock with `__tsan_acquire` / `__tsan_release`.
/// Without ThreadSanitizer those hooks are absent and cost one predictable branch.
///
/// Use it like a `Mutex`: short critical sections, never user code inside.
package final class Locked<State>: @unchecked Sendable {
    // Sendable: `state` is only read or written inside `withLock`, while `mutex` is held.
    private let mutex = Mutex<Void>(())
    private var state: State
    /// The hooks, copied per instance so a lock does not pay a lazy global's check each time.
    private let acquireHook = ThreadSanitizerHooks.acquire
    private let releaseHook = ThreadSanitizerHooks.release

    /// Guards `state`.
    package init(_ state: State) { self.state = state }

    /// Runs `body` with exclusive access to the state.
    @inline(__always)
    package func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try mutex.withLock { _ throws(Failure) -> Result in
            let address = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
            acquireHook?(address)
            defer { releaseHook?(address) }
            return try body(&state)
        }
    }
}

/// ThreadSanitizer's annotation entry points, found at run time (absent without ThreadSanitizer).
@usableFromInline
enum ThreadSanitizerHooks {
    @usableFromInline typealias Hook = @convention(c) (UnsafeRawPointer?) -> Void

    static let acquire: Hook? = lookup("__tsan_acquire")
    static let release: Hook? = lookup("__tsan_release")

    private static func lookup(_ name: String) -> Hook? {
        #if canImport(Darwin)
            let handle = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
            let handle: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        guard let symbol = dlsym(handle, name) else { return nil }
        return unsafeBitCast(symbol, to: Hook.self)
    }
}
