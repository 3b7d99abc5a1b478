import LabCore

/// "Which frieze is the camera looking at": the frieze, visible from `p`, whose bearing from `p`
/// is closest to the heading.
public enum FriezeMatcher {
    public static func bestFrieze(for heading: Double, from p: Point, venue: Venue) -> Int? {
        var best: (Int, Double)?
        for f in venue.friezes {
            let l = venue.landmarks[f]
            let diff = abs(Bearing.difference(heading, Bearing.degrees(from: p, to: l.position)))
            let penalty = l.isVisible(from: p) ? 0.0 : 180.0
            if best == nil || diff + penalty < best!.1 { best = (f, diff + penalty) }
        }
        return best?.0
    }
}
