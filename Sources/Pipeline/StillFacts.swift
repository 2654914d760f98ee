import Capture
import Foundation
import Output

/// The metadata of a still taken now from `session`: the camera's driver and
/// name, its exposure and gain when it has those controls, the source and
/// the filter chain.
enum StillFacts {
    static func metadata(session: SourceSession, software: String) -> StillMetadata {
        var facts = StillMetadata()
        facts.software = software
        facts.filters = session.renderer.settings.filters.summary
        facts.source = session.source?.summary ?? ""
        if let camera = session.source?.camera {
            if let info = try? camera.device.info() {
                facts.make = info.driver
                facts.model = info.card
            }
            for control in camera.device.controls() {
                // Under auto exposure or gain these read inactive, and hold what the auto loop chose.
                guard let value = control.value else { continue }
                switch control.name {
                // V4L2's absolute exposure is in units of 100 µs.
                case "exposure_time_absolute", "exposure_absolute": facts.exposure = Double(value) / 10_000
                case "gain", "analogue_gain": facts.gain = Int(value)
                default: break
                }
            }
        }
        return facts
    }
}
