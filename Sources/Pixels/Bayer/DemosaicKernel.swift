/// Five rows of samples, two above and two below the one a demosaic fills in.
struct RowWindow {
    let above2: UnsafePointer<Float>, above: UnsafePointer<Float>, row: UnsafePointer<Float>
    let below: UnsafePointer<Float>, below2: UnsafePointer<Float>

    init(_ above2: UnsafeMutablePointer<Float>, _ above: UnsafeMutablePointer<Float>, _ row: UnsafeMutablePointer<Float>,
         _ below: UnsafeMutablePointer<Float>, _ below2: UnsafeMutablePointer<Float>) {
        (self.above2, self.above, self.row, self.below, self.below2) = (UnsafePointer(above2), UnsafePointer(above), UnsafePointer(row),
                                                                        UnsafePointer(below), UnsafePointer(below2))
    }
}

/// Eight samples in a row (`Lanes`), and the sums of their neighbours that
/// the demosaics weigh.
struct Neighbourhood {
    typealias Lanes = SIMD8<Float>
    typealias Indices = SIMD8<Int32>
    /// The samples themselves.
    let center: Lanes
    /// Left and right; above and below.
    let across1: Lanes, down1: Lanes
    /// Two to the left and right; two above and below.
    let across2: Lanes, down2: Lanes
    /// The four diagonal neighbours.
    let diagonals: Lanes

    /// The samples from column `x` on of the window's middle row.
    @inline(__always)
    init(_ w: RowWindow, _ x: Int) {
        @inline(__always) func at(_ row: UnsafePointer<Float>, _ dx: Int) -> Lanes { UnsafeRawPointer(row + (x &+ dx)).loadUnaligned(as: Lanes.self) }
        center = at(w.row, 0)
        across1 = at(w.row, -1) + at(w.row, 1)
        down1 = at(w.above, 0) + at(w.below, 0)
        across2 = at(w.row, -2) + at(w.row, 2)
        down2 = at(w.above2, 0) + at(w.below2, 0)
        diagonals = (at(w.above, -1) + at(w.above, 1)) + (at(w.below, -1) + at(w.below, 1))
    }
}

/// The interpolations of a demosaic, each giving a missing color for eight
/// samples at once: green at a red or blue sample; the color to the left
/// and right of a green sample (`horizontal`) or above and below it
/// (`vertical`); and red at blue or blue at red (`diagonal`).
protocol DemosaicKernel {
    static func greenAtRedOrBlue(_ n: Neighbourhood) -> Neighbourhood.Lanes
    static func horizontal(_ n: Neighbourhood) -> Neighbourhood.Lanes
    static func vertical(_ n: Neighbourhood) -> Neighbourhood.Lanes
    static func diagonal(_ n: Neighbourhood) -> Neighbourhood.Lanes
}

/// The mean of the nearest samples of the color.
enum Bilinear: DemosaicKernel {
    @inline(__always) static func greenAtRedOrBlue(_ n: Neighbourhood) -> Neighbourhood.Lanes { (n.across1 + n.down1) * 0.25 }
    @inline(__always) static func horizontal(_ n: Neighbourhood) -> Neighbourhood.Lanes { n.across1 * 0.5 }
    @inline(__always) static func vertical(_ n: Neighbourhood) -> Neighbourhood.Lanes { n.down1 * 0.5 }
    @inline(__always) static func diagonal(_ n: Neighbourhood) -> Neighbourhood.Lanes { n.diagonals * 0.25 }
}

/// Malvar, He and Cutler (2004), "High-quality linear interpolation for
/// demosaicing of Bayer-patterned color images": the bilinear estimate
/// corrected by the Laplacian of the sample's own color, as four 5x5 kernels
/// (weights in eighths).
enum Malvar: DemosaicKernel {
    @inline(__always) static func greenAtRedOrBlue(_ n: Neighbourhood) -> Neighbourhood.Lanes {
        (n.center * 0.5 + (n.across1 + n.down1) * 0.25) - (n.across2 + n.down2) * 0.125
    }

    @inline(__always) static func horizontal(_ n: Neighbourhood) -> Neighbourhood.Lanes {
        (n.center * 0.625 + n.across1 * 0.5) - (n.across2 + n.diagonals) * 0.125 + n.down2 * 0.0625
    }

    @inline(__always) static func vertical(_ n: Neighbourhood) -> Neighbourhood.Lanes {
        (n.center * 0.625 + n.down1 * 0.5) - (n.down2 + n.diagonals) * 0.125 + n.across2 * 0.0625
    }

    @inline(__always) static func diagonal(_ n: Neighbourhood) -> Neighbourhood.Lanes {
        (n.center * 0.75 + n.diagonals * 0.25) - (n.across2 + n.down2) * 0.1875
    }
}
