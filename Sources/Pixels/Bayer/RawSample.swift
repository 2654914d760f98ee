/// A raw Bayer sample as a frame stores it: a byte, or the low bits of a
/// little-endian 16-bit word.
protocol RawSample: FixedWidthInteger {
    /// Eight pairs of samples from `p` on, as the even columns' and the odd columns' lanes.
    static func pairs(_ p: UnsafePointer<Self>) -> (SIMD8<Int32>, SIMD8<Int32>)
}

extension UInt8: RawSample {
    @inline(__always) static func pairs(_ p: UnsafePointer<UInt8>) -> (SIMD8<Int32>, SIMD8<Int32>) {
        // A pair in each 16-bit lane, the even column's byte low.
        let pairs = SIMD8<UInt32>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt16>.self))
        return (unsafeBitCast(pairs & 0xFF, to: SIMD8<Int32>.self), unsafeBitCast(pairs &>> 8, to: SIMD8<Int32>.self))
    }
}

extension UInt16: RawSample {
    @inline(__always) static func pairs(_ p: UnsafePointer<UInt16>) -> (SIMD8<Int32>, SIMD8<Int32>) {
        // A pair in each 32-bit lane, the even column's word low.
        let pairs = UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt32>.self)
        return (unsafeBitCast(pairs & 0xFFFF, to: SIMD8<Int32>.self), unsafeBitCast(pairs &>> 16, to: SIMD8<Int32>.self))
    }
}

/// Samples in lanes less the black level, each limited to the format's `maximum` first, and at least 0.
@inline(__always)
func aboveBlack(_ lanes: SIMD8<Int32>, _ black: Int, _ maximum: Int) -> SIMD8<Int32> {
    (lanes.atMost(Int32(maximum)) &- Int32(black)).nonNegative
}

/// One stored sample less the black level, limited to the format's `maximum` first, and at least 0.
@inline(__always)
func aboveBlack<T: RawSample>(_ sample: T, _ black: Int, _ maximum: Int) -> Int {
    max(0, min(Int(T(littleEndian: sample)), maximum) - black)
}
