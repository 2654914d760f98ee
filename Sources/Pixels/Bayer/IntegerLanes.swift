/// Limits on eight 32-bit integers by masks made of shifts, which Swift
/// compiles to vector instructions (its `pointwiseMin` and `pointwiseMax`
/// it may leave as calls over the lanes one by one). A lane less its limit
/// must not overflow Int32.
extension SIMD8 where Scalar == Int32 {
    @inline(__always) func atLeast(_ low: Int32) -> Self {
        let d = self &- low
        return self &- (d & (d &>> 31))
    }

    @inline(__always) func atMost(_ high: Int32) -> Self {
        let d = self &- high
        return high &+ (d & (d &>> 31))
    }

    /// Negative lanes as 0.
    @inline(__always) var nonNegative: Self { self & ~(self &>> 31) }
}
