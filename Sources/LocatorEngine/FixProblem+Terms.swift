extension FixProblem {
    /// The RSSI terms' columns, one beacon heard per term (``FixProblem/addRSSI(position:heightOffset:p0:rssi:count:)``):
    /// slot i of each column is term i's. Every column has one slot more than the terms it holds: the pair loops
    /// (``FixModel/Pair``) read the slot after the last term, whose weight is 0.
    package struct HeardTerms {
        /// The beacon's position, and its height above the phone.
        package let x, y, heightOffset: UnsafeMutablePointer<Double>
        /// The beacon's P0 and the mean reading heard, dBm.
        package let p0, rssi: UnsafeMutablePointer<Double>
        /// 1/s_i, s_i the mean reading's standard deviation about the law (in the range domain, that of the distance
        /// the reading says).
        package let weight: UnsafeMutablePointer<Double>
        /// The range domain's distance: the one the reading says, metres (only that domain reads it).
        package let rssiDistance: UnsafeMutablePointer<Double>
        /// Robust weight multiplier per RSSI term (√ of the IRLS weight), 1 unless set.
        package let robustWeight: UnsafeMutablePointer<Double>
        /// Each term's dm/dμ at the point the residuals were last evaluated (``FixProblem``'s `slopePoint`).
        let meanSlope: UnsafeMutablePointer<Double>
        /// The beacon as an origin of the walls' fans (``WallIndex/loss(fromOrigin:to:)``), −1 when its position is not
        /// one (the wall loss is then found by the plain query).
        let fan: UnsafeMutablePointer<Double>
        /// The beacon's index in the venue, for its radio map (−1: none).
        let beacon: UnsafeMutablePointer<Double>
    }

    /// The measured ranges' columns (UWB, Channel Sounding, Wi-Fi RTT), one ranged beacon per term.
    struct RangedTerms {
        /// The beacon's position, and its height above the phone.
        let x, y, heightOffset: UnsafeMutablePointer<Double>
        /// The ranged distance, metres, and 1/σ.
        let distance, weight: UnsafeMutablePointer<Double>
    }

    /// The censored terms' columns, one beacon of the venue not heard per term.
    struct CensoredTerms {
        /// The beacon's position, and its height above the phone.
        let x, y, heightOffset: UnsafeMutablePointer<Double>
        /// The beacon's P0, dBm.
        let p0: UnsafeMutablePointer<Double>
        /// The advertisements it missed, k (1 with correlated shadowing).
        let missedAdvertisements: UnsafeMutablePointer<Double>
        /// The beacon as an origin of the walls' fans, −1 when its position is not one (as ``HeardTerms/fan``).
        let fan: UnsafeMutablePointer<Double>
    }

    /// The bearing terms' columns: landmark position, heading in radians, 1/σθ.
    struct BearingTerms {
        let x, y, heading, weight: UnsafeMutablePointer<Double>

        /// The columns of the bearing block `block`: `capacity` slots each, one column after the other.
        init(block: UnsafeMutablePointer<Double>, capacity: Int) {
            x = block; y = block + capacity; heading = block + 2 * capacity; weight = block + 3 * capacity
        }
    }
}
