import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The threads that locate phones, apart from those that read messages, commit and acknowledge.
///
/// Locating is the service's heavy work, and it comes in bursts: phones that started together close their scan windows
/// together, and 200 particle-filter updates at once held both cores for tens of milliseconds while acknowledgements
/// waited behind them in the same task pool. Here a session's locating runs on one of these threads (chosen by the
/// phone's id, so a phone's windows are located in order), at a lower priority (nice +5): a waiting acknowledgement
/// is scheduled before the next location, which has a looser deadline.
final class LocatingWorkers: @unchecked Sendable {
    private final class Worker: @unchecked Sendable {
        let condition = NSCondition()
        var work: [@Sendable () -> Void] = []
        var stopping = false
    }

    private let workers: [Worker]

    /// - Parameters:
    ///   - threads: how many (default: one per core).
    ///   - nice: the threads' nice value (Linux: per thread), higher is lower priority.
    init(threads: Int = ProcessInfo.processInfo.activeProcessorCount, nice: Int32 = 5) {
        workers = (0..<max(1, threads)).map { _ in Worker() }
        for (i, worker) in workers.enumerated() {
            let thread = Thread { LocatingWorkers.loop(worker, nice: nice) }
            thread.name = "indoorlab.live.locate.\(i)"
            thread.start()
        }
    }

    private static func loop(_ w: Worker, nice: Int32) {
        #if canImport(Glibc)
        // On Linux the nice value is the calling thread's (who = 0 is this thread, not the process).
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
        #endif
        var batch: [@Sendable () -> Void] = []
        while true {
            w.condition.lock()
            while w.work.isEmpty && !w.stopping { w.condition.wait() }
            if w.work.isEmpty { w.condition.unlock(); return }
            swap(&batch, &w.work)
            w.condition.unlock()
            for item in batch { item() }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Runs `item` on the worker `key` picks, after what that worker was given before.
    func run(key: UInt64, _ item: @escaping @Sendable () -> Void) {
        let w = workers[Int(key % UInt64(workers.count))]
        w.condition.lock()
        w.work.append(item)
        w.condition.signal()
        w.condition.unlock()
    }

    /// Waits until every worker has run what it was given so far.
    func drain() {
        let done = DispatchSemaphore(value: 0)
        for k in workers.indices { run(key: UInt64(k)) { done.signal() } }
        for _ in workers { done.wait() }
    }

    deinit { stop() }

    /// Lets the threads end once they have run what they were given.
    func stop() {
        for w in workers {
            w.condition.lock(); w.stopping = true; w.condition.signal(); w.condition.unlock()
        }
    }
}
