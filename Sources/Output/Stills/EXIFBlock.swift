import CEXIF
import Foundation

/// The EXIF block of a still (`Exif\0\0` and a TIFF structure, what a JPEG's
/// APP1 segment and a PNG's `eXIf` chunk hold), built with libexif.
enum EXIFBlock {
    /// With `header`, the `Exif\0\0` prefix of JPEG's APP1; PNG's `eXIf` starts at the TIFF header.
    static func make(_ metadata: StillMetadata, width: Int, height: Int, header: Bool) throws -> [UInt8] {
        guard let data = exif_data_new() else { throw OutputError("out of memory building EXIF") }
        defer { exif_data_unref(data) }
        exif_data_set_byte_order(data, EXIF_BYTE_ORDER_INTEL)
        exif_data_set_data_type(data, EXIF_DATA_TYPE_COMPRESSED)
        var status: Int32 = 0
        func put(_ result: Int32) { status |= result }
        let zero = EXIF_IFD_0, exif = EXIF_IFD_EXIF
        if let make = metadata.make { put(kamera_exif_ascii(data, zero, EXIF_TAG_MAKE, make)) }
        if let model = metadata.model { put(kamera_exif_ascii(data, zero, EXIF_TAG_MODEL, model)) }
        put(kamera_exif_ascii(data, zero, EXIF_TAG_SOFTWARE, metadata.software))
        put(kamera_exif_ascii(data, zero, EXIF_TAG_DATE_TIME, metadata.exifDate))
        put(kamera_exif_ascii(data, zero, EXIF_TAG_IMAGE_DESCRIPTION, metadata.source))
        // The pixels are stored as they are to be seen: rotation and mirror are applied.
        put(kamera_exif_short(data, zero, EXIF_TAG_ORIENTATION, 1))
        put(kamera_exif_version(data))
        put(kamera_exif_ascii(data, exif, EXIF_TAG_DATE_TIME_ORIGINAL, metadata.exifDate))
        put(kamera_exif_ascii(data, exif, EXIF_TAG_SUB_SEC_TIME_ORIGINAL, metadata.subSeconds))
        put(kamera_exif_ascii(data, exif, EXIF_TAG_OFFSET_TIME_ORIGINAL, metadata.offset))
        put(kamera_exif_long(data, exif, EXIF_TAG_PIXEL_X_DIMENSION, UInt32(width)))
        put(kamera_exif_long(data, exif, EXIF_TAG_PIXEL_Y_DIMENSION, UInt32(height)))
        put(kamera_exif_short(data, exif, EXIF_TAG_COLOR_SPACE, 1))  // sRGB
        if let exposure = metadata.exposure, exposure > 0 {
            // 1/N s when that is exact enough, else microseconds.
            let n = (1 / exposure).rounded()
            if exposure < 1, abs(1 / n - exposure) < exposure * 0.001 {
                put(kamera_exif_rational(data, exif, EXIF_TAG_EXPOSURE_TIME, 1, UInt32(n)))
            } else {
                put(kamera_exif_rational(data, exif, EXIF_TAG_EXPOSURE_TIME, UInt32(min(exposure * 1_000_000, 4e9)), 1_000_000))
            }
        }
        put(kamera_exif_comment(data, metadata.comment))
        guard status == 0 else { throw OutputError("out of memory building EXIF") }
        var bytes: UnsafeMutablePointer<UInt8>?
        var size: UInt32 = 0
        exif_data_save_data(data, &bytes, &size)
        guard let bytes, size > 6 else { throw OutputError("libexif could not write the EXIF block") }
        defer { free(bytes) }
        // libexif writes the `Exif\0\0` prefix.
        let all = Array(UnsafeBufferPointer(start: bytes, count: Int(size)))
        return header ? all : Array(all.dropFirst(6))
    }
}
