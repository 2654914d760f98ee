import NIOCore

/// One encoded frame as every stream client receives it: the multipart part
/// (boundary, headers, the JPEG, CRLF) in one buffer all clients share, and
/// where its JPEG lies for a snapshot.
struct StreamPart {
    /// What separates parts, as mjpg-streamer and ustreamer name it (some clients expect it).
    static let boundary = "boundarydonotcross"

    var bytes: ByteBuffer
    var jpegOffset: Int
    var jpegCount: Int
    /// The frame's capture time in seconds (the driver's for a camera), as `X-Timestamp` says.
    var timestamp: Double
    var width: Int, height: Int
    /// When the part was made, on the monotonic clock.
    var madeAt: Double

    /// The JPEG alone, sharing the part's bytes.
    var jpeg: ByteBuffer { bytes.getSlice(at: jpegOffset, length: jpegCount)! }

    /// Writes the part into `buffer` (emptied first): no allocation when the buffer is large enough and not shared.
    static func write(jpeg: UnsafeRawBufferPointer, timestamp: Double, into buffer: inout ByteBuffer) -> (offset: Int, count: Int) {
        buffer.clear(minimumCapacity: jpeg.count + 160)
        buffer.writeStaticString("--")
        buffer.writeStaticString("boundarydonotcross\r\nContent-Type: image/jpeg\r\nContent-Length: ")
        buffer.writeDecimal(jpeg.count)
        buffer.writeStaticString("\r\nX-Timestamp: ")
        buffer.writeSeconds(timestamp)
        buffer.writeStaticString("\r\n\r\n")
        let offset = buffer.writerIndex
        buffer.writeBytes(jpeg)
        buffer.writeStaticString("\r\n")
        return (offset, jpeg.count)
    }
}

extension ByteBuffer {
    /// A non-negative whole number in decimal, without making a String.
    mutating func writeDecimal(_ value: Int) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = Swift.max(0, value)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { out in
            repeat {
                out[19 - count] = UInt8(ascii: "0") + UInt8(n % 10)
                n /= 10
                count += 1
            } while n > 0 && count < 20
            writeBytes(UnsafeRawBufferPointer(rebasing: out[(20 - count)...]))
        }
    }

    /// Seconds with six decimals (`1234.567890`), as ustreamer writes `X-Timestamp`.
    mutating func writeSeconds(_ seconds: Double) {
        let micro = Int((Swift.max(0, seconds) * 1e6).rounded())
        writeDecimal(micro / 1_000_000)
        writeStaticString(".")
        let fraction = micro % 1_000_000
        var scale = 100_000
        while scale > 1 && fraction < scale {
            writeStaticString("0")
            scale /= 10
        }
        writeDecimal(fraction)
    }
}
