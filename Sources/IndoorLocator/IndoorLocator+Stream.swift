import Foundation
internal import LabCore
internal import LocatorEngine

extension IndoorLocator {
    // MARK: - A stream

    /// Adds a measurement to the stream. Measurements older than one scan window before the newest are dropped.
    public func add(_ input: LocatorInput) {
        lock.lock(); defer { lock.unlock() }
        if case .step(let s) = input {
            // Kept until the tracker has moved by it (at most the last 4,096).
            if pendingSteps.count >= 4096 { pendingSteps.removeFirst(pendingSteps.count - 4095) }
            pendingSteps.append(s)
            return
        }
        stream.append(input)
        let t = input.timestamp.timeIntervalSinceReferenceDate
        newest = max(newest, t)
        let cutoff = newest - pathLoss.scanWindow
        // Amortised: once a window's worth is old enough to go (measurements arrive roughly in time order), not at every
        // measurement; ``currentLocation(at:)`` never reads what is older than the cutoff, so nothing changes but the work.
        if stream.first.map({ $0.timestamp.timeIntervalSinceReferenceDate < cutoff - pathLoss.scanWindow }) ?? false || stream.count > 4096 {
            stream.removeAll { $0.timestamp.timeIntervalSinceReferenceDate < cutoff }
        }
    }

    /// Adds one RSSI sample to the stream.
    public func add(_ sample: RSSISample) { add(.rssi(sample)) }
    /// Adds one range to the stream.
    public func add(_ range: RangeSample) { add(.range(range)) }
    /// Adds one heading to the stream.
    public func add(_ heading: CompassHeading) { add(.heading(heading)) }
    /// Adds one step to the stream.
    public func add(_ step: StepSample) { add(.step(step)) }

    /// The tracked position from the stream's measurements of the scan window ending at `time`. The track moves on by
    /// one scan per window: asking again less than a window later gives the same location back. One stream per
    /// locator: ``currentLocation(at:)`` and ``locations(from:)-(Inputs)`` step the same track.
    public func currentLocation(at time: Date) -> LocationOutcome {
        lock.lock(); defer { lock.unlock() }
        let to = time.timeIntervalSinceReferenceDate, from = to - pathLoss.scanWindow, kept = newest - pathLoss.scanWindow
        var window = stream.filter { let t = $0.timestamp.timeIntervalSinceReferenceDate; return t > from && t <= to && t >= kept }
        // Every step not yet used up to `to`, not only the window's: a step the pedometer reported late still counts.
        let due: (StepSample) -> Bool = { $0.timestamp.timeIntervalSinceReferenceDate <= to }
        for s in pendingSteps where due(s) { window.append(.step(s)) }
        let used = windowsUsed
        let outcome = locate(window, at: time, windowTime: to)
        if windowsUsed != used { pendingSteps.removeAll(where: due) }
        return outcome
    }

    /// Forgets the stream.
    public func reset() {
        lock.lock(); defer { lock.unlock() }
        stream.removeAll(keepingCapacity: true)
        newest = -.infinity
        pendingSteps.removeAll(); hasStepDetector = false
        tracker.startTrack()
        engine.startTrack()
        lastTracked = nil
    }

    /// Turns a sequence of measurements into a stream of tracked outcomes, one per scan window (``PathLossModel/scanWindow``
    /// seconds of measurement time, windows starting at the first measurement; empty windows give nothing).
    /// The last, partial window gives an outcome when the input ends. Cancelling the consuming task (or
    /// dropping the stream) stops reading the input. The input's errors end the stream.
    public func locations<Inputs: AsyncSequence & Sendable>(from inputs: Inputs) -> AsyncStream<LocationOutcome>
    where Inputs.Element == LocatorInput {
        AsyncStream { continuation in
            let task = Task {
                var window: [LocatorInput] = []
                var start: Double?
                let length = self.pathLoss.scanWindow
                do {
                    for try await input in inputs {
                        if Task.isCancelled { break }
                        let t = input.timestamp.timeIntervalSinceReferenceDate
                        if let s = start, t >= s + length {
                            if !window.isEmpty { continuation.yield(self.locateWindow(window, ending: s + length)) }
                            window.removeAll(keepingCapacity: true)
                            // The next window starts where this one ended, or at this measurement after a gap.
                            start = t < s + 2 * length ? s + length : t
                        }
                        if start == nil { start = t }
                        window.append(input)
                    }
                } catch {}
                if !Task.isCancelled, !window.isEmpty, let s = start { continuation.yield(self.locateWindow(window, ending: s + length)) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// ``locations(from:)-(Inputs)`` for a sequence of RSSI samples only.
    public func locations<Samples: AsyncSequence & Sendable>(from samples: Samples) -> AsyncStream<LocationOutcome>
    where Samples.Element == RSSISample {
        locations(from: RSSIInputs(samples: samples))
    }

    private func locateWindow(_ window: [LocatorInput], ending end: Double) -> LocationOutcome {
        lock.lock(); defer { lock.unlock() }
        return locate(window, at: nil, windowTime: end)
    }

    /// Splits a window's mixed measurements and tracks (lock held); `windowTime` is the window's end, seconds since
    /// the reference date (what the tracker predicts across).
    private func locate(_ inputs: [LocatorInput], at time: Date?, windowTime: Double) -> LocationOutcome {
        var samples: [RSSISample] = [], ranges: [RangeSample] = [], headings: [CompassHeading] = [], steps: [StepSample] = []
        for i in inputs {
            switch i {
            case .rssi(let s): samples.append(s)
            case .range(let r): ranges.append(r)
            case .heading(let h): headings.append(h)
            case .step(let s): steps.append(s)
            }
        }
        return locateLocked(samples, ranges: ranges, headings: headings, steps: steps, at: time, tracked: true, windowTime: windowTime)
    }

    /// Internal: the tracker's next fix for an already-built observation (checked against the tournament's particle filter).
    func track(observation: Observation) -> EstimateOutcome {
        lock.lock(); defer { lock.unlock() }
        return tracker.step(observation)
    }
}

/// An RSSI-sample sequence seen as a measurement sequence.
struct RSSIInputs<Samples: AsyncSequence & Sendable>: AsyncSequence, Sendable where Samples.Element == RSSISample {
    typealias Element = LocatorInput
    let samples: Samples
    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Samples.AsyncIterator
        mutating func next() async throws -> LocatorInput? { try await base.next().map { .rssi($0) } }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: samples.makeAsyncIterator()) }
}
