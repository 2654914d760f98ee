/// What a JPEG's markers say, read without decoding it.
public enum JPEGImage {
    /// The bytes of the JPEG at the start of `bytes`, through its end-of-image
    /// marker, when a browser can show it as it is: whole, with Huffman tables
    /// (DHT) of its own before its first scan (many webcams leave them out, and
    /// decoders then use the standard ones); nil otherwise. Only the markers are
    /// read: the segments' lengths, and in the scans' data the next byte that
    /// is neither stuffing nor a restart.
    public static func passableLength(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var at = 2, tables = false
        while at + 1 < bytes.count {
            guard bytes[at] == 0xFF else { return nil }
            let marker = bytes[at + 1]
            if marker == 0xFF { at += 1; continue }     // fill byte
            if marker == 0xD9 { return nil }             // end of image before any scan
            guard at + 4 <= bytes.count else { return nil }
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            guard length >= 2 else { return nil }
            if marker == 0xC4 { tables = true }
            at += 2 + length
            guard marker == 0xDA else { continue }
            guard tables else { return nil }
            // The scan's data runs to the next marker: 0xFF 0x00 is a stuffed 0xFF, 0xFF 0xD0-0xD7 a restart.
            while at + 1 < bytes.count {
                if bytes[at] != 0xFF { at += 1; continue }
                let next = bytes[at + 1]
                if next == 0x00 || (0xD0...0xD7).contains(next) { at += 2; continue }
                if next == 0xFF { at += 1; continue }
                if next == 0xD9 { return at + 2 }
                break                                    // more segments: a progressive JPEG's next tables and scans
            }
        }
        return nil
    }
}
