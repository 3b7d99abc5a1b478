import Foundation

/// Per-job results written from concurrent workers (`DispatchQueue.concurrentPerform`) and read back in job
/// order, so the output does not depend on scheduling.
final class ResultSlots<Value>: @unchecked Sendable {
    private var slots: [[Value]]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: [], count: count) }
    private var error: (any Error)?
    func set(_ i: Int, _ value: [Value]) { lock.lock(); slots[i] = value; lock.unlock() }
    /// Fills slot `i` with what `make` returns, or keeps its error (the first one wins) for ``values()``.
    func fill(_ i: Int, _ make: () throws -> [Value]) {
        do { set(i, try make()) } catch { lock.lock(); if self.error == nil { self.error = error }; lock.unlock() }
    }
    var all: [[Value]] { lock.lock(); defer { lock.unlock() }; return slots }
    /// Every slot, or the first error a ``fill(_:_:)`` met.
    func values() throws -> [[Value]] {
        lock.lock(); defer { lock.unlock() }
        if let error { throw error }
        return slots
    }
}
