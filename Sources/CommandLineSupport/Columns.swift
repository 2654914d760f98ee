extension String {
    /// The string left-aligned in a column of `width` characters.
    public func padded(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
