import Capture
import Foundation
import Output

/// The metadata of stills taken from `session`: the camera's driver and
/// name, its exposure and gain when it has those controls, the source and
/// the filter chain. The camera is looked at once (again when the session
/// moves to another); each still then reads only its exposure and gain.
final class StillFacts {
    private let session: SourceSession
    private let software: String
    private struct Camera {
        var path: String
        var make: String?, model: String?
        var exposure: UInt32?, gain: UInt32?
    }
    private var camera: Camera?

    /// `--strip`: every still's facts are marked to be left out.
    private let strip: Bool

    init(session: SourceSession, software: String, strip: Bool = false) {
        self.session = session
        self.software = software
        self.strip = strip
    }

    /// The facts of a still taken now.
    func metadata() -> StillMetadata {
        var facts = StillMetadata()
        facts.isStripped = strip
        if strip { return facts }
        facts.software = software
        facts.filters = session.renderer.settings.filters.summary
        facts.source = session.source?.summary ?? ""
        guard let source = session.source?.camera else { return facts }
        let device = source.device
        if camera?.path != device.path { camera = Self.look(at: device) }
        guard let camera else { return facts }
        facts.make = camera.make
        facts.model = camera.model
        // V4L2's absolute exposure is in units of 100 µs. Under auto exposure or gain these
        // controls read inactive, and hold what the auto loop chose.
        facts.exposure = camera.exposure.flatMap(device.value(ofControl:)).map { Double($0) / 10_000 }
        facts.gain = camera.gain.flatMap(device.value(ofControl:)).map { Int($0) }
        return facts
    }

    private static func look(at device: CameraDevice) -> Camera {
        // The device is streaming: no buffer request (see `CameraDevice.info(probingBusy:)`).
        let info = try? device.info(probingBusy: false)
        let controls = device.controls()
        func id(_ names: [String]) -> UInt32? { controls.first { names.contains($0.name) && $0.value != nil }?.id }
        return Camera(path: device.path, make: info?.driver, model: info?.card,
                      exposure: id(["exposure_time_absolute", "exposure_absolute"]), gain: id(["gain", "analogue_gain"]))
    }
}
