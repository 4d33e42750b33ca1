import Foundation

/// This process's open file descriptors (`/proc/self/fd`), for tests that prove nothing leaked.
public enum OpenDescriptors {
    /// How many of them are open on `path`: what a test opened itself, untouched by the descriptors
    /// that the test process's other threads open and close meanwhile.
    public static func count(to path: String) -> Int {
        let path = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == path }.count
    }
}
