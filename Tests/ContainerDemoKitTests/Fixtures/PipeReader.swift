import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a pipe to its end on a thread of its own.
enum PipeReader {
    /// Starts a thread that hands `receive` each chunk read from `handle`, then one empty chunk
    /// at the end of the stream (or on a read error). `receive` runs on that thread alone.
    static func start(_ handle: FileHandle, name: String, receive: @escaping (Data) -> Void) {
        // The thread is the only user of `receive` and of the state it captures.
        nonisolated(unsafe) let receive = receive
        let descriptor = handle.fileDescriptor
        let thread = Thread {
            // The handle stays alive (and its descriptor open) until the stream ended.
            withExtendedLifetime(handle) {
                var buffer = [UInt8](repeating: 0, count: 16_384)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    receive(Data(buffer[0..<count]))
                }
                receive(Data())
            }
        }
        thread.name = name
        thread.start()
    }
}
