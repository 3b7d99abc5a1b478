import Foundation
internal import LabCore
internal import LocatorEngine

extension IndoorLocator {
    // MARK: - The phone

    /// The phone's offset learned so far (nil before the first fix from RSSI, or after ``forgetDevice()``).
    public var deviceOffset: DeviceOffset? {
        lock.lock(); defer { lock.unlock() }
        return learnedOffset
    }

    /// What the engine has learned, as the public type (call with the lock held).
    var learnedOffset: DeviceOffset? { engine.learned.map { DeviceOffset(decibels: $0.mean, sigma: $0.variance.squareRoot()) } }

    /// Starts from a known offset of this phone (e.g. measured once against a beacon at 1 m): the fits use it
    /// as a prior with its σ and keep refining it. A σ below 0.001 dB counts as 0.001 dB, one above 100 dB as 100 dB.
    /// - Throws: ``/IndoorLocator/LocatorError`` (and changes nothing) when the offset is not a number within ±100 dB or its σ is not
    ///   a finite number ≥ 0.
    public func assumeDeviceOffset(_ offset: DeviceOffset) throws {
        guard offset.decibels.isFinite, abs(offset.decibels) <= 100 else {
            throw LocatorError("deviceOffset: \(offset.decibels) dB is not an offset a phone has (finite, within ±100 dB)")
        }
        guard offset.sigma.isFinite, offset.sigma >= 0 else { throw LocatorError("deviceOffset: σ \(offset.sigma) dB must be finite and ≥ 0") }
        let sigma = min(max(offset.sigma, 1e-3), 100)
        lock.lock(); defer { lock.unlock() }
        engine.startDevice(offset: (offset.decibels, sigma))
        tracker.startDevice(knownOffset: (offset.decibels, sigma))
        lastTracked = nil
    }

    /// Another phone takes over (or the app wants to start afresh): forget the learned offset and the track.
    public func forgetDevice() {
        lock.lock(); defer { lock.unlock() }
        engine.startDevice()
        tracker.startDevice()
        hasStepDetector = false
        pendingSteps.removeAll()
        lastTracked = nil
    }

    /// The phone was carried elsewhere without the stream seeing it (the app was paused): end the track, keep what
    /// was learned about the phone. A gap of more than 30 s between windows does this by itself.
    public func restartTrack() {
        lock.lock(); defer { lock.unlock() }
        tracker.startTrack()
        engine.startTrack()
        lastTracked = nil
    }
}
