import ArgumentParser
import CommandLineSupport
import Pixels

/// How raw Bayer frames become a picture (see `BayerISP`).
struct ISPOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Raw Bayer: the demosaic, malvar (Malvar-He-Cutler 5x5, the default) or bilinear (faster, softer).")
    var demosaic = "malvar"

    @Option(parsing: .unconditional, help: "Raw Bayer: the black level subtracted from each sample, in the format's units, such as 16 at 8 bits or 64 at 10 (default: a camera's sensor's datasheet value when its media graph names a sensor Kamera knows, as `kamera devices --formats` and -v say; else 0).")
    var blackLevel: String?

    @Option(parsing: .unconditional, help: "Raw Bayer white balance: auto (gray world on the frames before, smoothed; the default), gray-world (each frame's own), off, or gains R,G,B.")
    var awb = "auto"

    @Option(parsing: .unconditional, help: "Raw Bayer: a 3x3 color correction matrix for linear RGB, nine numbers row by row (such as 1.5,-0.3,-0.2,-0.2,1.4,-0.2,0,-0.5,1.5).")
    var ccm: String?

    @Option(parsing: .unconditional, help: "Raw Bayer transfer curve: srgb (the default: sensors are linear), none (for values already encoded, such as vivid's test pattern), or an exponent G.")
    var gamma = "srgb"

    /// True when any option here was given a value other than its default.
    var given: Bool { demosaic != "malvar" || blackLevel != nil || awb != "auto" || ccm != nil || gamma != "srgb" }

    /// The settings the options describe.
    func settings(bits: Int?) throws -> ISPSettings {
        var settings = ISPSettings()
        guard let demosaic = ISPSettings.Demosaic(rawValue: demosaic.lowercased()) else {
            throw UsageError("--demosaic \(excerpt(demosaic)) is not valid; use \(ISPSettings.Demosaic.allCases.map(\.rawValue).joined(separator: " or "))")
        }
        settings.demosaic = demosaic
        if let blackLevel {
            let top = (1 << (bits ?? 16)) - 2
            guard let level = Int(blackLevel), (0...top).contains(level) else {
                throw UsageError("--black-level \(excerpt(blackLevel)) is not valid; use a whole number from 0 to \(top)\(bits.map { " (the format has \($0) bits)" } ?? "")")
            }
            settings.blackLevel = level
        }
        guard let balance = ISPSettings.whiteBalance(awb) else {
            throw UsageError("--awb \(excerpt(awb)) is not valid; use \(ISPSettings.whiteBalanceForms), each gain above 0 and at most 16")
        }
        settings.whiteBalance = balance
        if let ccm {
            guard let matrix = ISPSettings.colorMatrix(ccm) else {
                throw UsageError("--ccm \(excerpt(ccm)) is not valid; give nine numbers from -16 to 16, row by row, separated by commas (identity: 1,0,0,0,1,0,0,0,1)")
            }
            settings.colorMatrix = matrix
        }
        guard let curve = ISPSettings.gamma(gamma) else {
            throw UsageError("--gamma \(excerpt(gamma)) is not valid; use \(ISPSettings.gammaForms)")
        }
        settings.gamma = curve
        return settings
    }
}
