/// Where a linear value (0...1) is found in a table of a transfer curve:
/// its bits as a 32-bit float, rounded to 9 bits of mantissa and counted
/// from 2⁻²⁴, so a value is off by 1/1024 of itself at most, the same
/// relative accuracy from black to white without a square root or a
/// logarithm, in a table of 12 KB. Values at or below 2⁻²⁴ share the first
/// entry, which holds black.
enum CurveIndex {
    static let smallest = Int32(bitPattern: Float(0x1p-24).bitPattern)
    static let one = Int32(bitPattern: Float(1).bitPattern)
    static let dropped: Int32 = 14
    /// Entries in a table: 24 binades of 512 steps, and 1.0.
    static let count = Int((one - smallest) >> dropped) + 1

    /// The entries of `value` at each index (its argument the linear value there, 0 for the first).
    static func table<T>(_ value: (Float) -> T) -> [T] {
        (0..<count).map { $0 == 0 ? value(0) : value(Float(bitPattern: UInt32(smallest + Int32($0) << dropped))) }
    }

    /// The index of each lane's value, clamped to 0...1 (below 2⁻²⁴ to black).
    /// The limits are taken on the bits, where Swift makes vector instructions of them;
    /// a negative value's bits are a negative integer, a NaN's above 1's.
    @inline(__always)
    static func of(_ v: Neighbourhood.Lanes) -> Neighbourhood.Indices {
        let bits = unsafeBitCast(v, to: Neighbourhood.Indices.self).nonNegative.atLeast(smallest).atMost(one)
        return (bits &- smallest &+ (1 << (dropped - 1))) &>> dropped
    }
}
