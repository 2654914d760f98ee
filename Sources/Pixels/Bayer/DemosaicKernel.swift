/// The interpolations of a demosaic, each reading the samples around the
/// one at `p` (rows `stride` apart) and giving the missing color:
/// green at a red or blue sample; the color to the left and right of a
/// green sample (`horizontal`) or above and below it (`vertical`); and red
/// at blue or blue at red (`diagonal`).
protocol DemosaicKernel {
    static func greenAtRedOrBlue(_ p: UnsafePointer<Float>, _ stride: Int) -> Float
    static func horizontal(_ p: UnsafePointer<Float>, _ stride: Int) -> Float
    static func vertical(_ p: UnsafePointer<Float>, _ stride: Int) -> Float
    static func diagonal(_ p: UnsafePointer<Float>, _ stride: Int) -> Float
}

/// The mean of the nearest samples of the color.
enum Bilinear: DemosaicKernel {
    @inline(__always) static func greenAtRedOrBlue(_ p: UnsafePointer<Float>, _ s: Int) -> Float { (p[-1] + p[1] + p[-s] + p[s]) * 0.25 }
    @inline(__always) static func horizontal(_ p: UnsafePointer<Float>, _ s: Int) -> Float { (p[-1] + p[1]) * 0.5 }
    @inline(__always) static func vertical(_ p: UnsafePointer<Float>, _ s: Int) -> Float { (p[-s] + p[s]) * 0.5 }
    @inline(__always) static func diagonal(_ p: UnsafePointer<Float>, _ s: Int) -> Float { (p[-s - 1] + p[-s + 1] + p[s - 1] + p[s + 1]) * 0.25 }
}

/// Malvar, He and Cutler (2004), "High-quality linear interpolation for
/// demosaicing of Bayer-patterned color images": the bilinear estimate
/// corrected by the Laplacian of the sample's own color, as four 5x5 kernels
/// (weights in eighths).
enum Malvar: DemosaicKernel {
    @inline(__always) static func greenAtRedOrBlue(_ p: UnsafePointer<Float>, _ s: Int) -> Float {
        (4 * p[0] + 2 * (p[-1] + p[1] + p[-s] + p[s]) - (p[-2] + p[2] + p[-2 * s] + p[2 * s])) * 0.125
    }

    @inline(__always) static func horizontal(_ p: UnsafePointer<Float>, _ s: Int) -> Float {
        (5 * p[0] + 4 * (p[-1] + p[1]) - (p[-2] + p[2]) - (p[-s - 1] + p[-s + 1] + p[s - 1] + p[s + 1])
            + 0.5 * (p[-2 * s] + p[2 * s])) * 0.125
    }

    @inline(__always) static func vertical(_ p: UnsafePointer<Float>, _ s: Int) -> Float {
        (5 * p[0] + 4 * (p[-s] + p[s]) - (p[-2 * s] + p[2 * s]) - (p[-s - 1] + p[-s + 1] + p[s - 1] + p[s + 1])
            + 0.5 * (p[-2] + p[2])) * 0.125
    }

    @inline(__always) static func diagonal(_ p: UnsafePointer<Float>, _ s: Int) -> Float {
        (6 * p[0] + 2 * (p[-s - 1] + p[-s + 1] + p[s - 1] + p[s + 1]) - 1.5 * (p[-2] + p[2] + p[-2 * s] + p[2 * s])) * 0.125
    }
}
