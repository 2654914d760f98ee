import Foundation
import Lifecycle

/// The facts a still carries (JPEG in EXIF, PNG in `eXIf` and `tEXt`):
/// when, by what, from what, and how it was filtered.
public struct StillMetadata: Sendable {
    /// When the frame was taken (`SOURCE_DATE_EPOCH` when set: `SourceDate`).
    public var date = Date(timeIntervalSince1970: SourceDate.now())
    /// The camera's driver (V4L2 `driver`), for EXIF Make; nil for other sources.
    public var make: String?
    /// The camera's name (V4L2 `card`), for EXIF Model.
    public var model: String?
    /// `Kamera 0.1.0+g1234abc`.
    public var software = "Kamera"
    /// What the frame came from: `/dev/video0 (vivid)`, `test pattern`, a file.
    public var source = ""
    /// The filter chain, `sepia, contrast=1.3`; `none`.
    public var filters = "none"
    /// Exposure time in seconds, when the camera reports it.
    public var exposure: Double?
    /// The camera's gain control, when it has one.
    public var gain: Int?
    /// `--strip`: none of this is written (no EXIF, no PNG text).
    public var isStripped = false

    public init() {}

    /// EXIF DateTime form, `2026:11:25 16:08:11`, in local time.
    var exifDate: String { Self.format(date, "yyyy:MM:dd HH:mm:ss") }
    /// Hundredths of a second, `07`.
    var subSeconds: String { String(format: "%02d", Int((date.timeIntervalSince1970 * 100).rounded(.down)) % 100) }
    /// `+01:00`.
    var offset: String { Self.format(date, "xxx") }
    /// PNG's Creation Time, RFC 3339 with hundredths: `2026-11-25T16:08:11.07+01:00`.
    var isoDate: String { Self.format(date, "yyyy-MM-dd'T'HH:mm:ss") + "." + subSeconds + offset }

    /// The comment line: the filters, and the gain (EXIF has no tag for a sensor's gain).
    var comment: String { "Filters: \(filters)" + (gain.map { "; gain \($0)" } ?? "") }

    private static func format(_ date: Date, _ pattern: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        // A date given by SOURCE_DATE_EPOCH is written in UTC, so that the bytes do not depend on the machine's zone.
        formatter.timeZone = SourceDate.fixed == nil ? TimeZone.current : TimeZone(identifier: "UTC")
        formatter.dateFormat = pattern
        return formatter.string(from: date)
    }
}
