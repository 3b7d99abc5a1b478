// The module's types by names an app's own types cannot shadow.
//
// The module and its main class share the name `IndoorLocator`, so in an app `IndoorLocator.Location` looks `Location`
// up in the class, not in the module. An app with its own `Location`, `Position` or `Room` (many have one) could then
// name the library's only through Swift 6.3's module selector (`IndoorLocator::Location`) or through aliases in a
// target of its own. These aliases in the class make `IndoorLocator.Location` the library's on every compiler.
//
// Inside the class's extension `Location` would name the alias itself, so each alias goes through a hidden top-level
// one (a leading underscore keeps it out of the documentation and of code completion).

extension IndoorLocator {
    /// The module's `Position`, by a name an app's own `Position` does not shadow: `IndoorLocator.Position`.
    public typealias Position = _IndoorLocatorPosition
    /// The module's `BeaconIdentity`, by a name an app's own `BeaconIdentity` does not shadow: `IndoorLocator.BeaconIdentity`.
    public typealias BeaconIdentity = _IndoorLocatorBeaconIdentity
    /// The module's `BeaconPlacement`, by a name an app's own `BeaconPlacement` does not shadow: `IndoorLocator.BeaconPlacement`.
    public typealias BeaconPlacement = _IndoorLocatorBeaconPlacement
    /// The module's `PathLossModel`, by a name an app's own `PathLossModel` does not shadow: `IndoorLocator.PathLossModel`.
    public typealias PathLossModel = _IndoorLocatorPathLossModel
    /// The module's `Frieze`, by a name an app's own `Frieze` does not shadow: `IndoorLocator.Frieze`.
    public typealias Frieze = _IndoorLocatorFrieze
    /// The module's `WallSegment`, by a name an app's own `WallSegment` does not shadow: `IndoorLocator.WallSegment`.
    public typealias WallSegment = _IndoorLocatorWallSegment
    /// The module's `Room`, by a name an app's own `Room` does not shadow: `IndoorLocator.Room`.
    public typealias Room = _IndoorLocatorRoom
    /// The module's `RSSISample`, by a name an app's own `RSSISample` does not shadow: `IndoorLocator.RSSISample`.
    public typealias RSSISample = _IndoorLocatorRSSISample
    /// The module's `RangingTechnology`, by a name an app's own `RangingTechnology` does not shadow: `IndoorLocator.RangingTechnology`.
    public typealias RangingTechnology = _IndoorLocatorRangingTechnology
    /// The module's `RangeSample`, by a name an app's own `RangeSample` does not shadow: `IndoorLocator.RangeSample`.
    public typealias RangeSample = _IndoorLocatorRangeSample
    /// The module's `CompassHeading`, by a name an app's own `CompassHeading` does not shadow: `IndoorLocator.CompassHeading`.
    public typealias CompassHeading = _IndoorLocatorCompassHeading
    /// The module's `StepSample`, by a name an app's own `StepSample` does not shadow: `IndoorLocator.StepSample`.
    public typealias StepSample = _IndoorLocatorStepSample
    /// The module's `LocatorInput`, by a name an app's own `LocatorInput` does not shadow: `IndoorLocator.LocatorInput`.
    public typealias LocatorInput = _IndoorLocatorLocatorInput
    /// The module's `UncertaintyEllipse`, by a name an app's own `UncertaintyEllipse` does not shadow: `IndoorLocator.UncertaintyEllipse`.
    public typealias UncertaintyEllipse = _IndoorLocatorUncertaintyEllipse
    /// The module's `IgnoredSamples`, by a name an app's own `IgnoredSamples` does not shadow: `IndoorLocator.IgnoredSamples`.
    public typealias IgnoredSamples = _IndoorLocatorIgnoredSamples
    /// The module's `Location`, by a name an app's own `Location` does not shadow: `IndoorLocator.Location`.
    public typealias Location = _IndoorLocatorLocation
    /// The module's `DeviceOffset`, by a name an app's own `DeviceOffset` does not shadow: `IndoorLocator.DeviceOffset`.
    public typealias DeviceOffset = _IndoorLocatorDeviceOffset
    /// The module's `LocationUnavailable`, by a name an app's own `LocationUnavailable` does not shadow: `IndoorLocator.LocationUnavailable`.
    public typealias LocationUnavailable = _IndoorLocatorLocationUnavailable
    /// The module's `LocationOutcome`, by a name an app's own `LocationOutcome` does not shadow: `IndoorLocator.LocationOutcome`.
    public typealias LocationOutcome = _IndoorLocatorLocationOutcome
    /// The module's `LocatorError`, by a name an app's own `LocatorError` does not shadow: `IndoorLocator.LocatorError`.
    public typealias LocatorError = _IndoorLocatorLocatorError
    /// The module's `RadioMap`, by a name an app's own `RadioMap` does not shadow: `IndoorLocator.RadioMap`.
    public typealias RadioMap = _IndoorLocatorRadioMap
}

/// The module's `Position` for ``IndoorLocator/IndoorLocator/Position`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorPosition = Position
/// The module's `BeaconIdentity` for ``IndoorLocator/IndoorLocator/BeaconIdentity`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorBeaconIdentity = BeaconIdentity
/// The module's `BeaconPlacement` for ``IndoorLocator/IndoorLocator/BeaconPlacement`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorBeaconPlacement = BeaconPlacement
/// The module's `PathLossModel` for ``IndoorLocator/IndoorLocator/PathLossModel`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorPathLossModel = PathLossModel
/// The module's `Frieze` for ``IndoorLocator/IndoorLocator/Frieze`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorFrieze = Frieze
/// The module's `WallSegment` for ``IndoorLocator/IndoorLocator/WallSegment`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorWallSegment = WallSegment
/// The module's `Room` for ``IndoorLocator/IndoorLocator/Room`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorRoom = Room
/// The module's `RSSISample` for ``IndoorLocator/IndoorLocator/RSSISample`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorRSSISample = RSSISample
/// The module's `RangingTechnology` for ``IndoorLocator/IndoorLocator/RangingTechnology`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorRangingTechnology = RangingTechnology
/// The module's `RangeSample` for ``IndoorLocator/IndoorLocator/RangeSample`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorRangeSample = RangeSample
/// The module's `CompassHeading` for ``IndoorLocator/IndoorLocator/CompassHeading`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorCompassHeading = CompassHeading
/// The module's `StepSample` for ``IndoorLocator/IndoorLocator/StepSample`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorStepSample = StepSample
/// The module's `LocatorInput` for ``IndoorLocator/IndoorLocator/LocatorInput`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorLocatorInput = LocatorInput
/// The module's `UncertaintyEllipse` for ``IndoorLocator/IndoorLocator/UncertaintyEllipse`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorUncertaintyEllipse = UncertaintyEllipse
/// The module's `IgnoredSamples` for ``IndoorLocator/IndoorLocator/IgnoredSamples`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorIgnoredSamples = IgnoredSamples
/// The module's `Location` for ``IndoorLocator/IndoorLocator/Location`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorLocation = Location
/// The module's `DeviceOffset` for ``IndoorLocator/IndoorLocator/DeviceOffset`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorDeviceOffset = DeviceOffset
/// The module's `LocationUnavailable` for ``IndoorLocator/IndoorLocator/LocationUnavailable`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorLocationUnavailable = LocationUnavailable
/// The module's `LocationOutcome` for ``IndoorLocator/IndoorLocator/LocationOutcome`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorLocationOutcome = LocationOutcome
/// The module's `LocatorError` for ``IndoorLocator/IndoorLocator/LocatorError`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorLocatorError = LocatorError
/// The module's `RadioMap` for ``IndoorLocator/IndoorLocator/RadioMap`` to name (not for apps: hidden by its underscore).
public typealias _IndoorLocatorRadioMap = RadioMap
