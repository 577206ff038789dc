import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Names the calling thread where tools see it: `ps -L`, `top -H`, `perf` and debuggers on Linux, Instruments and
/// debuggers on Apple platforms.
///
/// On Linux, with Swift 6.3's Foundation, a name given to a `Thread` before it started did not reach the kernel (the
/// thread showed the name of the thread that created it, a Swift concurrency thread's "…default-qos"), so the thread
/// names itself as it starts. The kernel keeps at most 15 bytes.
enum ThreadName {
    /// The longest name Linux keeps, in bytes.
    static let maximumLength = 15

    /// Names the calling thread; a name longer than ``maximumLength`` bytes is cut to it.
    static func setCurrent(_ name: String) {
        Thread.current.name = name
        #if os(Linux) || os(Android)
        // What `pthread_setname_np` does for the calling thread (Glibc's module map does not import it).
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        let bytes = Array(name.utf8.prefix(maximumLength))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        #endif
    }
}
