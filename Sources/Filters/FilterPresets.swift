/// The named color matrices: presets without a value and adjustments that take one.
public enum FilterPresets {
    public struct Preset {
        public let name: String
        public let summary: String
        public let matrix: ColorMatrix
    }

    public struct Adjustment {
        public let name: String
        /// What the value means, e.g. "factor, 1 = unchanged".
        public let summary: String
        public let range: ClosedRange<Float>
        public let make: (Float) -> ColorMatrix
    }

    public static let presets: [Preset] = [
        Preset(name: "none", summary: "no change", matrix: .identity),
        Preset(name: "sepia", summary: "warm brown tones (GPUImage's sepia matrix)", matrix: .sepia),
        Preset(name: "gray", summary: "luma only, BT.601 weights: what a camera's Y plane holds", matrix: .gray),
        Preset(name: "mono", summary: "black and white with a little extra contrast (after CIPhotoEffectMono)",
               matrix: ColorMatrix.gray.then(.contrast(1.1))),
        Preset(name: "noir", summary: "high-contrast black and white (after CIPhotoEffectNoir)",
               matrix: ColorMatrix.gray.then(.contrast(1.5)).then(.brightness(-0.05))),
        Preset(name: "tonal", summary: "soft black and white with compressed tones (after CIPhotoEffectTonal)",
               matrix: ColorMatrix.gray.then(.contrast(0.85))),
        Preset(name: "invert", summary: "the negative, 1 - color (CIColorInvert)", matrix: .invert),
        Preset(name: "instant", summary: "faded, warm instant-film look (after CIPhotoEffectInstant)",
               matrix: ColorMatrix.saturation(0.75).then(.tint(1.05, 1.0, 0.9)).then(.contrast(0.9)).then(.brightness(0.03))),
        Preset(name: "transfer", summary: "warm vintage colors (after CIPhotoEffectTransfer)",
               matrix: ColorMatrix.saturation(1.1).then(.tint(1.08, 1.0, 0.85)).then(.contrast(1.05))),
        Preset(name: "chrome", summary: "vivid, punchy colors (after CIPhotoEffectChrome)",
               matrix: ColorMatrix.saturation(1.3).then(.contrast(1.15))),
        Preset(name: "fade", summary: "washed out, low contrast (after CIPhotoEffectFade)",
               matrix: ColorMatrix.saturation(0.6).then(.contrast(0.8)).then(.brightness(0.05))),
        Preset(name: "process", summary: "cool cross-processed look (after CIPhotoEffectProcess)",
               matrix: ColorMatrix.tint(0.9, 1.0, 1.1).then(.contrast(1.1)).then(.saturation(0.9))),
    ]

    public static let adjustments: [Adjustment] = [
        Adjustment(name: "brightness", summary: "amount added to R, G and B, 0 = unchanged", range: -1...1,
                   make: ColorMatrix.brightness),
        Adjustment(name: "contrast", summary: "factor around mid-gray, 1 = unchanged", range: 0...4,
                   make: ColorMatrix.contrast),
        Adjustment(name: "saturation", summary: "factor, 0 = gray, 1 = unchanged", range: 0...4,
                   make: ColorMatrix.saturation),
        Adjustment(name: "hue", summary: "rotation in degrees, luma kept", range: -360...360,
                   make: { ColorMatrix.hue(degrees: $0) }),
    ]

    public static func preset(named name: String) -> Preset? { presets.first { $0.name == name } }
    public static func adjustment(named name: String) -> Adjustment? { adjustments.first { $0.name == name } }
}
