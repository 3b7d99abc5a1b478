extension ParticleTracker {
    /// What a particle filter assumes and which of its parts are on.
    package struct Settings: Sendable {
        /// How many particles.
        package var particles = 1000
        /// How the walker and the phone's offset move between scans: the ekf's, but for the walking mode's acceleration
        /// (``walkingAcceleration``).
        package var motion = MotionModel(acceleration: Settings.walkingAcceleration)
        /// q of the walking mode, m²/s³: with stopping a mode of its own (``stillMode``), the walk's constant-velocity model
        /// needs only a walker's changes of pace and turns, not its stops: 0.1 against the ekf's 0.5 (docs/tracking.md,
        /// "Standing still").
        package static let walkingAcceleration = 0.1
        /// The model error σ_m added to each mean's variance, dB, at least, when the venue states a model error
        /// (``RadioModel/modelError`` > 0; the venue's when larger): what remains of it after the parts the filter weighs
        /// itself (the body when the facing is known, the beacons' learned P0 errors) never falls below this. A venue
        /// that states none (the ideal condition, whose law is exact; a fit that could not split its σ, which is then
        /// the whole spread) adds nothing: there 2 dB more would make the ellipses wider than the errors.
        package var modelSigma = 2.0
        /// Outlier rate ε and extra scale s_o (dB) of the likelihood's heavy tail.
        package var outlierRate = 0.05
        package var outlierScale = 10.0
        /// The field's likelihood (docs/tracking.md, "The field's likelihood"): each beacon's P0 error
        /// learned along the track (when the venue has a ``Venue/beaconSpread``), the heard means truncated at the
        /// sensitivity, whether each beacon was heard or missed, and the walker facing where it last went while it
        /// stands. Off (for comparison): each scan's beacons are weighed as independent readings with the model error.
        package var fieldModel = true
        /// With the field's likelihood, the least probability that a beacon goes unreported for a whole scan window
        /// however strong it would read (the receiver busy, scans throttled, a duty-cycled scanner): a missed beacon
        /// weighs a place down by at most ln of this, so one dropout cannot veto the walker's true place. 2%: the
        /// Daniş receivers missed 2% of (window, receiver) pairs, near or far (docs/tracking.md, "The field's
        /// likelihood"); the simulated field walks do as well with it as without it. The venue's measured
        /// ``RadioModel/dropout`` d adds to it as an independent cause: the floor is 1 − (1 − this)·(1 − d).
        package var missFloor = 0.02
        /// A track's first cloud is the posterior of its first scan (``start(_:ranges:dt:)``): the particles drawn around
        /// the scan's fit, and a share (``uniformShare``) anywhere on the walkable floor, weighed by the scan's
        /// likelihood times the prior over the proposal's density, and the first report is their weighted mean. Off: the
        /// first report is the fit and the cloud drawn around it is taken as the posterior unweighed.
        package var posteriorStart = true
        /// A track starts from a scan of one or two beacons too (or ranges), too few for a fit: its particles drawn anywhere
        /// on the walkable floor and weighed by the scan (with ``posteriorStart``), so every scan window that heard
        /// something gets a location, as wide as the scan leaves it. Off: such a scan gets no fix until one of three
        /// beacons starts the track.
        package var startsFromFloor = true
        /// Each scan's headings toward friezes weigh the particles (``weigh(headings:)``), as they join the snapshot fit.
        /// Off (for comparison): the filter weighs RSSI and ranges only.
        package var weighsHeadings = true
        /// The share of a track's first cloud drawn uniformly over the walkable floor (a defensive mixture: Hesterberg
        /// 1995), so that the weighed cloud holds the posterior's mass where the fit's neighbourhood misses it.
        package var uniformShare = 0.3
        /// With the field's likelihood and a phone without a step detector, each particle's walker faces along the
        /// cloud's mean velocity turned by the particle's own velocity across it, while the cloud moves faster than
        /// ``facingSpeed`` (and keeps its last facing below it), so the body's sector is weighed instead of left in the
        /// model error: the body's pattern tells the particles whose heading is right (``faceAlongVelocity()``).
        package var facingFromVelocity = true
        /// The least speed of the cloud's mean velocity at which the velocities set the facing, m/s.
        package var facingSpeed = 0.4
        /// Stopping is part of the motion (for a phone without a step detector; with one, a scan without steps is
        /// standing): each particle's walker either walks, moved by the constant-velocity model, or stands, moved only by
        /// the standing random walk, and switches between them as ``MotionModel/walkDwell`` and ``MotionModel/standScale`` say;
        /// a walker who stops keeps the velocity it walked at and walks on at it. Nothing tells the filter when the
        /// walker stops: the readings choose. While the walker stands, the particles that stand keep the evidence of
        /// every scan at one spot, and the walking ones drift away from it (docs/tracking.md, "Standing still"). Off:
        /// every particle walks.
        package var stillMode = true
        /// The regularised filter (Musso, Oudjane & Le Gland 2001): after each resampling every particle's position,
        /// δ and compass bias move by a Gaussian kernel of covariance h² times the resampled cloud's, h from
        /// Silverman's rule (``bandwidth(particles:)``); a jittered position that leaves the floor or crosses a wall
        /// stays where it was. Resampling copies the particles that weighed most, and without fresh spread a cloud
        /// that has resampled again and again is a few copies, narrower than its error (docs/tracking.md, "The
        /// regularised filter"). Off: the plain bootstrap filter.
        package var regularised = true
        /// Sensor resetting of a lost cloud (Lenser & Veloso 2000): when the scans keep disagreeing with the cloud
        /// (the ``LostCloudDetector``'s evidence passes ``lostThreshold``), ``injectedShare`` of the particles are drawn afresh around the
        /// scan's own fit, as a track's first cloud is, and the next scans weigh them against the rest
        /// (docs/tracking.md, "A lost cloud"). Off: a lost cloud finds the walker only by its own spread.
        package var resetsLostCloud = true
        /// The cumulative evidence (in units of the capped normalised innovation squared, beyond one per heard beacon)
        /// at which the cloud counts as lost.
        package var lostThreshold = 8.0
        /// The share of the particles drawn afresh around the scan's fit when the cloud is lost, in (0, 1]: every
        /// (1/share, rounded)-th particle.
        package var injectedShare = 0.1
        /// The readings and ranges a scan needs before a lost cloud is drawn again around its fit: four, one more than
        /// the fit's unknowns (x, y, δ). A fit of three readings passes through all three (only the fallback prior holds
        /// δ), so it follows their noise, and particles drawn around it would follow it (docs/tracking.md, "A lost
        /// cloud").
        package var resetReadings = 4
        package init() {}
    }
}
