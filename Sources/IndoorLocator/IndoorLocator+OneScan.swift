import Foundation
internal import LabCore
internal import LocatorEngine

extension IndoorLocator {
    // MARK: - One scan

    /// Locates from one scan: RSSI samples averaged per beacon (in dBm), ranges combined per beacon (weighted by
    /// 1/σ²), headings toward friezes. Samples from beacons the locator does not know, RSSI 0 (unknown),
    /// positive, below −127 dBm or not finite, and invalid ranges are ignored and counted (``Location/ignored``).
    public func locate(rssi samples: [RSSISample], ranges: [RangeSample] = [], headings: [CompassHeading] = []) -> LocationOutcome {
        lock.lock(); defer { lock.unlock() }
        return locateLocked(samples, ranges: ranges, headings: headings, at: nil, tracked: false)
    }

    /// Locates from one scan of RSSI samples (and headings): ``locate(rssi:ranges:headings:)`` without ranges.
    public func locate(_ samples: [RSSISample], headings: [CompassHeading] = []) -> LocationOutcome {
        lock.lock(); defer { lock.unlock() }
        return locateLocked(samples, ranges: [], headings: headings, at: nil, tracked: false)
    }

    /// The index of a beacon identity, or nil when the locator does not know it.
    @inline(__always) private func beaconIndex(_ id: BeaconIdentity) -> Int? {
        if packed.count <= 64, let key = PackedIBeacon(id) {
            for (i, p) in packed.enumerated() where p == key { return i }
            return nil
        }
        return index[id]
    }

    func locateLocked(_ samples: [RSSISample], ranges: [RangeSample], headings: [CompassHeading], steps: [StepSample] = [],
                              at time: Date?, tracked: Bool, windowTime: Double = 0) -> LocationOutcome {
        var w = Workspace()
        swap(&w, &workspace)
        defer { swap(&w, &workspace) }
        var ignored = IgnoredSamples()
        var newestUsed = -Double.infinity
        // Mean RSSI per known beacon, in dBm, without building intermediate arrays.
        // In place: a sample copied out copies its identity's enum, with its retains, and each write to an array checks
        // that it is not shared (together most of the loop's work).
        w.sums.withUnsafeMutableBufferPointer { sums in
            w.counts.withUnsafeMutableBufferPointer { counts in
                sums.update(repeating: 0); counts.update(repeating: 0)
                samples.withUnsafeBufferPointer { buffer in
                    for k in buffer.indices {
                        guard let i = beaconIndex(buffer[k].beacon) else { ignored.unknownBeacon += 1; continue }
                        let rssi = buffer[k].rssi
                        guard rssi.isFinite else { ignored.notFinite += 1; continue }
                        if rssi == 0 { ignored.rssiUnknown += 1; continue }
                        if rssi > 0 { ignored.rssiPositive += 1; continue }
                        if rssi < RSSISample.weakestRSSI { ignored.rssiTooWeak += 1; continue }
                        sums[i] += rssi
                        counts[i] += 1
                        newestUsed = max(newestUsed, buffer[k].timestamp.timeIntervalSinceReferenceDate)
                    }
                }
            }
        }
        // In the observation's order (strongest first), so that it need not sort a copy.
        w.observed.removeAll(keepingCapacity: true)
        for i in w.sums.indices where w.counts[i] > 0 {
            w.observed.append(BeaconObservation(beacon: i, rssi: w.sums[i] / Double(w.counts[i]), count: w.counts[i]))
            w.observed.withUnsafeMutableBufferPointer { b in
                var k = b.count - 1
                while k > 0, Observation.isHeardBefore(b[k], b[k - 1]) { b.swapAt(k, k - 1); k -= 1 }
            }
        }
        // Ranges per beacon, combined by inverse variance.
        w.ranged.removeAll(keepingCapacity: true)
        if !ranges.isEmpty {
            for i in w.rangeInformation.indices { w.rangeInformation[i] = 0; w.rangeWeightedSums[i] = 0 }
            for r in ranges {
                guard let i = beaconIndex(r.beacon) else { ignored.unknownBeacon += 1; continue }
                guard r.distance.isFinite, r.sigma.isFinite else { ignored.notFinite += 1; continue }
                guard r.distance >= 0, r.sigma > 0 else { ignored.invalidRange += 1; continue }
                let weight = 1 / (r.sigma * r.sigma)
                w.rangeInformation[i] += weight
                w.rangeWeightedSums[i] += weight * r.distance
                newestUsed = max(newestUsed, r.timestamp.timeIntervalSinceReferenceDate)
            }
            for i in w.rangeInformation.indices where w.rangeInformation[i] > 0 {
                w.ranged.append(MeasuredRange(beacon: i, distance: w.rangeWeightedSums[i] / w.rangeInformation[i],
                                            sigma: 1 / w.rangeInformation[i].squareRoot()))
            }
        }
        var hs: [HeadingReading] = []
        for h in headings {
            guard h.degrees.isFinite, h.accuracy.isFinite else { ignored.notFinite += 1; continue }
            var frieze: Int?
            if let name = h.frieze {
                guard let f = venue.landmarks.firstIndex(where: { $0.name == name }) else { ignored.unknownFrieze += 1; continue }
                frieze = f
            }
            hs.append(HeadingReading(t: h.timestamp.timeIntervalSinceReferenceDate, heading: h.degrees, accuracy: h.accuracy, frieze: frieze, target: nil))
            newestUsed = max(newestUsed, h.timestamp.timeIntervalSinceReferenceDate)
        }
        var walked: [StepReading] = []
        for s in steps {
            let step = StepReading(t: s.timestamp.timeIntervalSinceReferenceDate, length: s.length, heading: s.heading,
                                   lengthAccuracy: s.lengthAccuracy, headingAccuracy: s.headingAccuracy)
            guard step.isValid else { ignored.invalidStep += 1; continue }
            walked.append(step)
            newestUsed = max(newestUsed, step.t)
        }
        guard !w.observed.isEmpty || !w.ranged.isEmpty || !hs.isEmpty || (tracked && !walked.isEmpty) else {
            if tracked { windowsUsed += 1 }   // its steps, if any, were all invalid and are counted
            return .unavailable(.noMeasurements, ignored: ignored)
        }
        if tracked, let last = lastTracked, windowTime >= last.windowTime, windowTime < last.windowTime + pathLoss.scanWindow {
            return last.outcome
        }
        if !walked.isEmpty { hasStepDetector = true }
        if tracked { windowsUsed += 1 }
        let observation = Observation(beacons: w.observed, headings: hs, t: tracked ? windowTime : nil,
                                      steps: tracked && hasStepDetector ? walked.sorted { $0.t < $1.t } : nil)
        let snapshot = engine.locate(observation, ranges: w.ranged)
        let outcome = tracked ? tracker.step(observation, ranges: w.ranged) : snapshot
        switch outcome {
        case .noFix(let reason): return .unavailable(LocationUnavailable(reason, heard: w.observed.count + w.ranged.count), ignored: ignored)
        case .fix(let f):
            let p = Position(x: f.position.x, y: f.position.y)
            var location = Location(position: p, timestamp: time ?? Date(timeIntervalSinceReferenceDate: newestUsed),
                                    room: venue.roomIndex(at: f.position).map { venue.rooms[$0].name },
                                    friezeInView: f.frieze.map { venue.landmarks[$0].name },
                                    uncertainty: f.covariance.flatMap(UncertaintyEllipse.init(covariance:)),
                                    deviceOffset: w.observed.isEmpty ? nil : tracked ? tracker.offset.map { DeviceOffset(decibels: $0.mean, sigma: $0.sigma) } : learnedOffset,
                                    beaconsUsed: beaconsUsed(f.beaconsUsed, heard: w.observed, ranged: w.ranged), ignored: ignored)
            if tracked {
                location.velocity = f.velocity.map { Position(x: $0.x, y: $0.y) }
                location.snapshot = snapshot.fix.map { Position(x: $0.position.x, y: $0.position.y) }
                lastTracked = (windowTime, .located(location))
            }
            return .located(location)
        }
    }

    /// The identities behind a fix's beacon set; beyond 128 beacons the set keeps only a count, so then every
    /// beacon heard or ranged in the scan is listed (the shipped estimator uses all of them).
    private func beaconsUsed(_ set: BeaconSet, heard observed: [BeaconObservation], ranged: [MeasuredRange]) -> [BeaconIdentity] {
        // Scans often hear the same beacons as the last: then the last list is given again (an array shares its storage).
        if let last = lastBeaconsUsed, last.set == set { return last.identities }
        var identities: [BeaconIdentity] = []
        identities.reserveCapacity(set.count)
        for i in set { identities.append(beacons[i].identity) }
        guard identities.count == set.count else {   // beyond 128 beacons the set only counts: not cached
            return Array(Set(observed.map(\.beacon) + ranged.map(\.beacon))).sorted().map { beacons[$0].identity }
        }
        lastBeaconsUsed = (set, identities)
        return identities
    }

    /// Internal: the one-scan fix for an already-built observation (used to check the library against the tournament).
    func locate(observation: Observation) -> EstimateOutcome {
        lock.lock(); defer { lock.unlock() }
        return engine.locate(observation)
    }
}
