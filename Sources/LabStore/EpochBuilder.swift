import Foundation
import LabCore

/// Turns a recording's samples back into the epochs estimators and metrics work on.
///
/// Scan window k covers [k·W, (k+1)·W) with W the recording's scan window; its epoch is at the window's
/// middle (k + ½)·W. A window becomes an epoch when it holds at least one ground-truth sample:
/// - one truth sample: that position (the phone is taken to stand still for the window, as the simulator does);
/// - several (a dense annotated track): the position interpolated linearly at the window's middle between
///   the window's samples on either side of it (the nearest sample when the middle is outside them).
///
/// The epoch's readings and headings are every sample of the window, in the order they were recorded. When the
/// recording has steps, each epoch gets those since the previous epoch (time in (previous epoch, this epoch]),
/// as the simulator gives them.
/// Windows with readings but no truth are left out (nothing to score them against) and counted.
/// For a simulated walk this gives back exactly the simulator's epochs: its readings lie in
/// [t − W/2, t + W/2) around epoch times t = (k + ½)·W.
public struct EpochBuilder: Sendable {
    public let venue: Venue
    public let window: Double

    public init(venue: Venue) {
        self.venue = venue
        self.window = venue.radio.scanWindow
    }

    /// The epochs, and how many windows with readings had no truth.
    public struct Result: Sendable {
        public var epochs: [Epoch]
        public var windowsWithoutTruth: Int
        public var readingsWithoutTruth: Int
        /// Each epoch's observation, when the recording's readings came condensed (``Recording/condensed``): its epochs
        /// then hold no readings. Nil: make them from the epochs' readings.
        public var observations: [Observation]?
    }

    /// The window holding time `t`. The tiny relative guard keeps a time that is k·W in exact arithmetic
    /// (but a few ulps below after repeated additions) in window k.
    @inline(__always) public func windowIndex(_ t: Double) -> Int { EpochBuilder.windowIndex(t, window: window) }

    /// The window of length `window` holding time `t` (from the recording's origin): how replay, the live service and
    /// the simulated phones all cut windows.
    @inline(__always) public static func windowIndex(_ t: Double, window: Double) -> Int {
        // Clamped so that a crafted recording with an absurd (but finite) time cannot trap the conversion.
        let k = (t / window + 1e-9).rounded(.down)
        return k.isNaN ? 0 : Int(max(min(k, 1e15), -1e15))
    }

    public func epochs(_ r: Recording) -> Result {
        let truth = TruthLookup(r, builder: self)
        if let condensed = r.condensed {
            var observations: [Observation] = []
            observations.reserveCapacity(truth.order.count)
            let epochs = build(r, truth: truth, readings: { _ in [] }) { k, e in
                observations.append(Observation(beacons: condensed.beacons(inWindow: k), headings: e.headings, t: e.t, steps: e.steps))
            }
            let orphans = condensed.withoutTruth { truth.windows[$0] != nil }
            return Result(epochs: epochs, windowsWithoutTruth: orphans.windows, readingsWithoutTruth: orphans.readings, observations: observations)
        }
        var readings: [Int: [RSSIReading]] = [:]
        var orphanReadings = 0
        var orphanWindows = Set<Int>()
        for s in r.rssi {
            let k = windowIndex(s.t)
            if truth.windows[k] != nil { readings[k, default: []].append(s) } else { orphanReadings += 1; orphanWindows.insert(k) }
        }
        let epochs = build(r, truth: truth, readings: { readings[$0] ?? [] }) { _, _ in }
        return Result(epochs: epochs, windowsWithoutTruth: orphanWindows.count, readingsWithoutTruth: orphanReadings)
    }

    /// One epoch per window with truth, in time order, with window k's `readings(k)`; `made` sees each as it is made.
    private func build(_ r: Recording, truth: TruthLookup, readings: (Int) -> [RSSIReading], made: (Int, Epoch) -> Void) -> [Epoch] {
        var headings: [Int: [HeadingReading]] = [:]
        for h in r.headings {
            let k = windowIndex(h.t)
            if truth.windows[k] != nil { headings[k, default: []].append(h) }
        }
        var epochs: [Epoch] = []
        epochs.reserveCapacity(truth.order.count)
        let walk = r.info.walk ?? r.info.name
        // Steps in time order; each goes to the first epoch at or after it (a hair of slack: a step that ends at
        // an epoch's time belongs to it).
        let steps = r.steps.map { $0.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element) }
        var nextStep = 0
        for k in truth.order {
            let mid = (Double(k) + 0.5) * window
            let at = EpochBuilder.interpolate(truth.samples[truth.windows[k]!], at: mid)
            var since: [StepReading]?
            if let steps {
                let start = nextStep
                while nextStep < steps.count && steps[nextStep].t <= mid + 1e-9 * window { nextStep += 1 }
                since = Array(steps[start..<nextStep])
            }
            let e = Epoch(walk: walk, index: epochs.count, t: mid, truth: at.position, truthSource: at.source,
                          room: venue.roomIndex(at: at.position), readings: readings(k), headings: headings[k] ?? [], steps: since)
            made(k, e)
            epochs.append(e)
        }
        return epochs
    }

    /// The truth at `t` from one window's samples (sorted by time): linear interpolation between the samples
    /// on either side of `t`, the nearest end sample outside them. The source is that of the nearer sample;
    /// z is interpolated when both samples have one.
    static func interpolate(_ s: ArraySlice<TruthSample>, at t: Double) -> (position: Point, z: Double?, source: TruthSource) {
        let first = s.first!, last = s.last!
        if s.count == 1 || t <= first.t { return (first.position, first.z, first.source) }
        if t >= last.t { return (last.position, last.z, last.source) }
        let j = s.firstIndex { $0.t >= t }!
        let a = s[j - 1], b = s[j]
        let f = b.t > a.t ? (t - a.t) / (b.t - a.t) : 0
        let p = Point(a.position.x + f * (b.position.x - a.position.x), a.position.y + f * (b.position.y - a.position.y))
        let z = a.z.flatMap { za in b.z.map { za + f * ($0 - za) } }
        return (p, z, f < 0.5 ? a.source : b.source)
    }

    /// A recording's truth grouped by scan window: where the device was when a sample at `t` was taken
    /// (the window's truth when it has one sample, interpolated at `t` when it has several; nil when the
    /// window has none).
    public struct TruthLookup: Sendable {
        let builder: EpochBuilder
        /// Truth samples stably sorted by time.
        let samples: [TruthSample]
        /// The samples of each window that has any.
        let windows: [Int: Range<Int>]
        /// Those windows in time order.
        let order: [Int]

        public init(_ r: Recording, builder: EpochBuilder) {
            self.builder = builder
            samples = r.truth.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
            var w: [Int: Range<Int>] = [:]
            var order: [Int] = []
            var i = 0
            while i < samples.count {
                let k = builder.windowIndex(samples[i].t)
                var j = i + 1
                while j < samples.count && builder.windowIndex(samples[j].t) == k { j += 1 }
                if w[k] == nil { order.append(k) }
                w[k] = i..<j
                i = j
            }
            windows = w
            self.order = order
        }

        public func at(_ t: Double) -> (position: Point, z: Double?)? {
            guard let range = windows[builder.windowIndex(t)] else { return nil }
            let at = EpochBuilder.interpolate(samples[range], at: t)
            return (at.position, at.z)
        }
    }
}
