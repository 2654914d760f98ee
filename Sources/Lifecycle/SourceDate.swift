import Glibc

/// The date written into outputs (a still's EXIF and PNG text, a recording's
/// creation time): now, or the one `SOURCE_DATE_EPOCH` gives (the
/// reproducible-builds convention: seconds since 1970, UTC), so that two runs
/// of the same job write the same bytes.
public enum SourceDate {
    /// `SOURCE_DATE_EPOCH` as seconds since 1970, when it is set to a whole
    /// number from 0 to year 9999; nil otherwise.
    public static var fixed: Double? {
        guard let text = getenv("SOURCE_DATE_EPOCH").map({ String(cString: $0) }), let seconds = Int64(text),
              (0...253_402_300_799).contains(seconds) else { return nil }
        return Double(seconds)
    }

    /// Seconds since 1970 to write as the time an output was made.
    public static func now() -> Double {
        if let fixed { return fixed }
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
