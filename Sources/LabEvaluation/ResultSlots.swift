import Foundation

/// Per-job results written from concurrent workers (`DispatchQueue.concurrentPerform`) and read back in job
/// order, so the output does not depend on scheduling.
final class ResultSlots<Value>: @unchecked Sendable {
    private var slots: [[Value]]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: [], count: count) }
    func set(_ i: Int, _ value: [Value]) { lock.lock(); slots[i] = value; lock.unlock() }
    var all: [[Value]] { lock.lock(); defer { lock.unlock() }; return slots }
}
