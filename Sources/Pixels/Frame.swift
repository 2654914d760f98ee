/// One plane of a frame: its bytes and the distance between rows, and where
/// the same bytes lie as a dma-buf when the source can share them with the GPU.
public struct Plane {
    public var bytes: UnsafeRawBufferPointer
    public var bytesPerRow: Int
    public var dmabuf: DMABufPlane?

    public init(bytes: UnsafeRawBufferPointer, bytesPerRow: Int, dmabuf: DMABufPlane? = nil) {
        self.bytes = bytes
        self.bytesPerRow = bytesPerRow
        self.dmabuf = dmabuf
    }
}

/// A plane's place in a dma-buf: the file descriptor and the byte offset of
/// the plane's first row. The descriptor stays open as long as the source.
public struct DMABufPlane: Hashable, Sendable {
    public var fd: Int32
    public var offset: Int

    public init(fd: Int32, offset: Int) {
        self.fd = fd
        self.offset = offset
    }
}

/// A video frame as a source hands it out: the counterpart of a `CMSampleBuffer`.
///
/// The plane memory belongs to the source and stays valid until the source
/// produces its next frame; `storage` keeps it alive that long.
public struct Frame {
    public var format: PixelFormat
    public var width: Int
    public var height: Int
    public var planes: [Plane]
    /// Monotonic capture time in nanoseconds.
    public var timestamp: UInt64
    /// Position in the stream, from 0.
    public var sequence: UInt64
    /// How to read the Y'CbCr values of YUV formats.
    public var colorSpace: YUVColorSpace
    /// The owner of the plane memory.
    public var storage: AnyObject?
    /// For raw Bayer frames (`PixelFormat.isMosaic`): the pattern and how to develop it.
    public var bayer: RawBayer?
    /// An MJPEG camera's own JPEG of this picture, as the driver handed it
    /// over (bytes may follow its end: `JPEGImage.passableLength`): an output
    /// that sends JPEG can send it as it is when nothing changed the picture.
    /// Valid as long as the planes.
    public var jpeg: UnsafeRawBufferPointer?

    public init(format: PixelFormat, width: Int, height: Int, planes: [Plane], timestamp: UInt64 = 0,
                sequence: UInt64 = 0, colorSpace: YUVColorSpace = .bt601Limited, storage: AnyObject? = nil) {
        self.format = format
        self.width = width
        self.height = height
        self.planes = planes
        self.timestamp = timestamp
        self.sequence = sequence
        self.colorSpace = colorSpace
        self.storage = storage
    }
}
