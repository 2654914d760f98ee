/// Five rows of the samples of one column parity (the even columns' or the
/// odd ones'), two above and two below the row a demosaic fills in.
struct RowWindow {
    let above2: UnsafePointer<Float>, above: UnsafePointer<Float>, row: UnsafePointer<Float>
    let below: UnsafePointer<Float>, below2: UnsafePointer<Float>
}

/// Eight samples of one column parity in a row (`Lanes`: columns 2i, 2i + 2,
/// …), and the sums of their neighbours that the demosaics weigh: the samples
/// of the same parity are in `own`, those of the other parity, between them,
/// in `other`.
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

    /// The samples from index `i` of `own`'s middle row on; their left
    /// neighbours are at index `left` of `other` (i - 1 for even columns, i for odd ones).
    @inline(__always)
    init(own: RowWindow, other: RowWindow, _ i: Int, left: Int) {
        @inline(__always) func at(_ row: UnsafePointer<Float>, _ index: Int) -> Lanes { UnsafeRawPointer(row + index).loadUnaligned(as: Lanes.self) }
        let right = left &+ 1
        center = at(own.row, i)
        across1 = at(other.row, left) + at(other.row, right)
        down1 = at(own.above, i) + at(own.below, i)
        across2 = at(own.row, i &- 1) + at(own.row, i &+ 1)
        down2 = at(own.above2, i) + at(own.below2, i)
        diagonals = (at(other.above, left) + at(other.above, right)) + (at(other.below, left) + at(other.below, right))
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
