import Foundation

/// An iBeacon identity as two 64-bit words (the UUID) and one (major, minor); nil for other kinds.
struct PackedIBeacon: Equatable {
    let high: UInt64, low: UInt64, majorMinor: UInt32

    init?(_ id: BeaconIdentity) {
        guard case .iBeacon(let uuid, let major, let minor) = id.kind else { return nil }
        (high, low) = withUnsafeBytes(of: uuid.uuid) {
            ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        majorMinor = UInt32(major) << 16 | UInt32(minor)
    }
}
