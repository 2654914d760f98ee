import Foundation

/// CIELAB and the CIEDE2000 color difference (Sharma, Wu and Dalal's
/// formulation), for color checks of whole pictures.
enum ColorDifference {
    /// CIELAB (D65 white) of an sRGB color, each channel 0...1.
    static func lab(srgb: SIMD3<Double>) -> SIMD3<Double> {
        func linear(_ c: Double) -> Double { c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
        let (r, g, b) = (linear(srgb.x), linear(srgb.y), linear(srgb.z))
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        return SIMD3(116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
    }

    static func deltaE2000(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
        let degree = Double.pi / 180
        let c1 = hypot(a.y, a.z), c2 = hypot(b.y, b.z), meanC = (c1 + c2) / 2
        let g = 0.5 * (1 - sqrt(pow(meanC, 7) / (pow(meanC, 7) + pow(25, 7))))
        let a1 = a.y * (1 + g), a2 = b.y * (1 + g)
        let c1p = hypot(a1, a.z), c2p = hypot(a2, b.z)
        func hue(_ x: Double, _ y: Double) -> Double { x == 0 && y == 0 ? 0 : (atan2(y, x) / degree + 360).truncatingRemainder(dividingBy: 360) }
        let h1 = hue(a1, a.z), h2 = hue(a2, b.z)
        let dL = b.x - a.x, dC = c2p - c1p
        var dh = 0.0
        if c1p * c2p != 0 { dh = h2 - h1; if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 } }
        let dH = 2 * sqrt(c1p * c2p) * sin(dh / 2 * degree)
        let meanL = (a.x + b.x) / 2, meanCp = (c1p + c2p) / 2
        var meanH = h1 + h2
        if c1p * c2p != 0 { meanH = abs(h1 - h2) <= 180 ? (h1 + h2) / 2 : (h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2) }
        let t = 1 - 0.17 * cos((meanH - 30) * degree) + 0.24 * cos(2 * meanH * degree) + 0.32 * cos((3 * meanH + 6) * degree)
            - 0.20 * cos((4 * meanH - 63) * degree)
        let dTheta = 30 * exp(-pow((meanH - 275) / 25, 2))
        let rc = 2 * sqrt(pow(meanCp, 7) / (pow(meanCp, 7) + pow(25, 7)))
        let sl = 1 + 0.015 * pow(meanL - 50, 2) / sqrt(20 + pow(meanL - 50, 2))
        let sc = 1 + 0.045 * meanCp, sh = 1 + 0.015 * meanCp * t
        let rt = -sin(2 * dTheta * degree) * rc
        return sqrt(pow(dL / sl, 2) + pow(dC / sc, 2) + pow(dH / sh, 2) + rt * (dC / sc) * (dH / sh))
    }
}
