import Foundation
import LabStore

/// Commits the sessions' batches and acknowledges them once committed.
///
/// Group commit: a session's messages wait in its pending batch while an earlier commit of the session runs, then go
/// in one transaction. Sessions are spread over eight serial queues, so a slow commit holds up only the phones on its
/// queue, and every core writes. An acknowledgement is sent only after its transaction has committed; a failed
/// commit (a full disk) acknowledges nothing and tells the phone, which sends the messages again.
final class LiveStorage: @unchecked Sendable {
    private let queues: [DispatchQueue]
    let metrics: LiveMetrics

    /// Eight queues: a commit that waits for the disk (SQLite's checkpoint of a session's log syncs the file) holds up
    /// the eighth of the phones on its queue, not half of them; the waiting costs no CPU.
    init(metrics: LiveMetrics, queues count: Int = 8) {
        self.metrics = metrics
        queues = (0..<count).map { DispatchQueue(label: "indoorlab.live.storage.\($0)", qos: .userInitiated) }
    }

    private func queue(for session: PhoneSession) -> DispatchQueue {
        queues[Int(session.key % UInt64(queues.count))]
    }

    /// FNV-1a of a string (stable across runs, unlike `hashValue`).
    static func hash(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return h
    }

    /// Queues `batch` of `session` for commit; `receivedAt` is when its message arrived (for the latency).
    /// `committed`, when given, hears of the commit (true) or its failure instead of the phone (a surveyor's tap).
    func enqueue(_ batch: LiveBatch, of session: PhoneSession, seq: Int?, receivedAt: ContinuousClock.Instant,
                 committed: (@Sendable (Bool) -> Void)? = nil) {
        session.lock.lock()
        if session.pending == nil { session.pending = batch } else { session.pending!.merge(batch) }
        session.pendingReceipts.append(PhoneSession.Receipt(seq: seq, at: receivedAt, committed: committed))
        let schedule = !session.flushScheduled
        session.flushScheduled = true
        session.lock.unlock()
        if schedule { queue(for: session).async { self.flush(session) } }
    }

    private func flush(_ session: PhoneSession) {
        session.lock.lock()
        let batch = session.pending
        let receipts = session.pendingReceipts
        session.pending = nil; session.pendingReceipts = []; session.flushScheduled = false
        session.lock.unlock()
        guard let batch else { return }
        let start = ContinuousClock.now
        do {
            try session.recording.commit(batch)
        } catch {
            metrics.commitLatency.recordNanoseconds(LiveStorage.nanoseconds(ContinuousClock.now - start))
            for r in receipts {
                metrics.reject(.storageFailed)
                if let committed = r.committed { committed(false); continue }
                session.send(LiveEncoder.encode(.error(MessageProblem(.storageFailed, "not stored (\(error)); send it again later", seq: r.seq))))
            }
            // The session's locator has read what was not stored: it ends here, and the phone's reconnection resumes
            // from the recording's last committed message.
            session.breakOff("the recording could not be written: \(error)")
            return
        }
        let done = ContinuousClock.now
        metrics.commitLatency.recordNanoseconds(LiveStorage.nanoseconds(done - start))
        metrics.commitBatch.record(Double(receipts.count))
        for r in receipts {
            if let committed = r.committed { committed(true); continue }
            guard let seq = r.seq else { continue }
            session.send(LiveEncoder.encode(.ack(seq: seq)))
            metrics.ackLatency.recordNanoseconds(LiveStorage.nanoseconds(ContinuousClock.now - r.at))
        }
    }

    /// Waits for every queued commit.
    func drain() { for q in queues { q.sync {} } }

    static func nanoseconds(_ d: Duration) -> Int64 {
        d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000
    }
}

extension PhoneSession {
    /// Sends `text` to the connected phone (dropped when it is not connected: it will send its unacknowledged messages
    /// again, and get their acknowledgements then).
    func send(_ text: String) {
        lock.lock(); let sink = self.sink; lock.unlock()
        sink?.yield(.text(text))
    }

    /// Ends the session after a failed commit: the connection closes (its outbound stream finishes) and the service
    /// forgets the session.
    func breakOff(_ why: String) {
        lock.lock(); broken = why; let sink = self.sink; self.sink = nil; lock.unlock()
        sink?.yield(.close(.unexpectedServerError, "the recording could not be written; reconnect later"))
        sink?.finish()
    }
}
