import Foundation
import LabCore

/// Creates `dir` and its missing parents (like `mkdir -p`), reporting the POSIX reason and the component
/// at fault: "/a/file is not a directory" rather than Foundation's "NSCocoaErrorDomain error 512".
/// - Parameter created: gets the directories this call made, parents first (to remove them after a failure).
/// - Returns: nil on success, else the reason.
public func createDirectories(_ dir: String, created: inout [String]) -> String? {
    var st = stat()
    if stat(dir, &st) == 0 { return (st.st_mode & S_IFMT) == S_IFDIR ? nil : "\(dir) is not a directory" }
    let parent = parentPath(dir)
    if !parent.isEmpty && parent != dir, let problem = createDirectories(parent, created: &created) { return problem }
    if mkdir(dir, 0o777) != 0 {
        if errno != EEXIST { return "\(dir): \(String(cString: strerror(errno)))" }
    } else {
        created.append(dir)
    }
    return nil
}

/// Removes directories ``createDirectories(_:created:)`` made (`created`, parents first) once a write that
/// needed them failed: deepest first, each only while empty (a directory something else wrote into stays).
public func removeCreatedDirectories(_ created: [String]) {
    for dir in created.reversed() where rmdir(dir) != 0 { break }
}

/// ``createDirectories(_:created:)`` when the directories made need not be known.
public func createDirectories(_ dir: String) -> String? {
    var created: [String] = []
    return createDirectories(dir, created: &created)
}
