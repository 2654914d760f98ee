import Glibc

/// Saves single pictures under numbered names (`kamera-snapshot-0001.jpg`,
/// then 0002, …) in a folder, taking the first free number and never
/// overwriting a file, even one made meanwhile by another process. JPEG
/// stills carry their metadata as EXIF, PNG ones as `tEXt` and `eXIf`.
public final class SnapshotWriter {
    /// What a snapshot is saved as (`--snapshot-format`).
    public enum Format: String, CaseIterable, Sendable {
        case jpg, png
    }

    public let folder: String
    public let prefix: String
    public let format: Format
    private let png = PNGEncoder()
    private let jpegSettings: JPEGSettings
    private var jpeg: JPEGEncoder?
    private var names: NumberedNames

    public init(folder: String = ".", prefix: String = "kamera-snapshot-", format: Format = .png, jpeg: JPEGSettings = JPEGSettings()) {
        self.folder = folder
        self.prefix = prefix
        self.format = format
        jpegSettings = jpeg
        names = NumberedNames(folder: folder, prefix: prefix, fileExtension: format.rawValue)
    }

    /// Writes the picture; returns the path it took.
    public func save(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, metadata: StillMetadata? = nil) throws -> String {
        var bytes: [UInt8]
        switch format {
        case .jpg:
            let encoder = try jpeg ?? JPEGEncoder(settings: jpegSettings)
            jpeg = encoder
            bytes = Array(try encoder.encode(pixels, width: width, height: height, metadata: metadata))
        case .png:
            let encoded = try png.encode(pixels, width: width, height: height)
            guard let metadata else {
                bytes = Array(encoded)
                break
            }
            bytes = []
            try PNGMetadataChunks.write(encoded, with: metadata) { bytes += $0 }
        }
        while let path = names.nextPath() {
            if access(path, F_OK) == 0 { continue }
            let file = try OutputFile(path: path)
            try bytes.withUnsafeBytes { try file.write($0) }
            if try file.commit(replacing: false) { return path }
        }
        throw names.exhausted("snapshot")
    }
}
