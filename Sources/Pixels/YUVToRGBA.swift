import Glibc
import Lifecycle

/// Converts a rectangle of a YUYV or NV12 frame to 8-bit RGB on the CPU, in
/// integer arithmetic from per-color-space tables, with the same sampling as
/// the GPU's `yuyv.frag` and `nv12.frag` (each pixel's own luma, its pair's or
/// 2x2 block's chroma). On a software renderer this is several times cheaper
/// than a conversion pass: llvmpipe spends about 10 ns a pixel on a
/// floating-point fragment shader, this about 1.2 of CPU time.
///
/// A color matrix folded in (`transform`) is composed with the conversion
/// into the same tables (`PackedTables`), so it costs nothing per pixel: it
/// applies to the color the YUV values encode, before that is clamped to
/// 0...255, as in the conversion shaders (`yuyv.frag`, `nv12.frag`) with the
/// matrix folded in. A luma-based filter (gray, sepia) so follows the
/// camera's luma even where a saturated color lies outside RGB.
///
/// The output is RGBA or BGRA bytes (`ChannelOrder`): llvmpipe draws a BGRA
/// texture onto a BGRA/XRGB screen on its fixed-point path, several times
/// faster than an RGBA one. At `halved`, each output pixel is the mean of a
/// 2x2 block (luma and chroma averaged, then converted): the next mipmap level,
/// for a picture shown at half its size or less. With a `mosaic` of N, each
/// block of N x N pixels takes the color of the pixel at its center, as
/// `pixellate.frag` does, converting one pixel a block. Large pictures are
/// converted on several threads.
///
/// RGB24 and GREY frames, RGB already, are cropped into RGBA the same way,
/// with the matrix folded in (`RGBConversionKernels`): on a software renderer
/// a frame then needs no draw at all when the picture is the crop (the
/// developed picture of a raw Bayer sensor among them).
public final class YUVToRGBA {
    /// The byte order of the output pixels.
    public enum ChannelOrder: Sendable {
        case rgba, bgra
    }

    /// The pixels of the last conversion, `outputWidth * 4` bytes a row.
    public private(set) var pixels = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    public private(set) var outputWidth = 0
    public private(set) var outputHeight = 0
    private var tables = ConversionTables()
    private let parallel: ParallelRows
    private lazy var job = Job(self)

    /// Pictures of this many pixels or more are converted on several threads.
    public static let splitPixels = 1 << 17

    /// `threads`: how many threads convert a large picture (default: one per core, at most 4).
    public init(threads: Int = min(max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))), 4)) {
        parallel = ParallelRows(threads: threads, name: "kamera.yuv")
    }

    deinit { pixels.deallocate() }

    /// The layouts it reads; other YUV and RGB layouts are repacked into these
    /// first when the CPU converts (the GPU's shaders read them as they are).
    public static let formats: [PixelFormat] = [.yuyv, .nv12, .rgb24, .grey]

    /// The YUV layouts among `formats`.
    public static let yuvFormats: [PixelFormat] = [.yuyv, .nv12]

    /// The output size for a rectangle of `width` x `height`.
    public static func outputSize(width: Int, height: Int, halved: Bool) -> (width: Int, height: Int) {
        halved ? (max(1, width / 2), max(1, height / 2)) : (width, height)
    }

    /// Converts the pixels of `frame` in the rectangle into `pixels`,
    /// reallocating only when the output size changes; `transform`, when
    /// given, maps each pixel (a color matrix folded into the conversion).
    public func convert(_ frame: Frame, x: Int, y: Int, width: Int, height: Int, transform: RGBTransform? = nil,
                        order: ChannelOrder = .rgba, halved: Bool = false, mosaic: Int = 1) {
        precondition(Self.formats.contains(frame.format), "not a YUYV, NV12, RGB24 or GREY frame")
        precondition(mosaic >= 1 && !(halved && mosaic > 1), "a mosaic is converted at full size")
        precondition(x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= frame.width && y + height <= frame.height)
        let size = Self.outputSize(width: width, height: height, halved: halved)
        if size.width * size.height * 4 != pixels.count {
            pixels.deallocate()
            pixels = .allocate(byteCount: size.width * size.height * 4, alignment: 64)
        }
        (outputWidth, outputHeight) = size
        if frame.format.isYUV {
            tables.prepare(frame.colorSpace, transform)
        } else {
            tables.prepare(rgb: transform)
        }
        job.task = Task(frame: frame, rect: Rectangle(x: x, y: y, width: width, height: height), halved: halved, order: order, mosaic: mosaic)
        // Rows are independent: large pictures are split between threads.
        if size.width * size.height >= Self.splitPixels {
            parallel.run(count: size.height, job)
        } else {
            job.work(rows: 0..<size.height)
        }
        job.task = nil
    }

    private struct Rectangle {
        let x: Int, y: Int, width: Int, height: Int
    }

    /// One conversion's parameters.
    private struct Task {
        let frame: Frame
        let rect: Rectangle
        let halved: Bool
        let order: ChannelOrder
        let mosaic: Int
    }

    /// The rows of the current conversion, for `ParallelRows`.
    private final class Job: RowWork {
        unowned let converter: YUVToRGBA
        var task: Task?

        init(_ converter: YUVToRGBA) { self.converter = converter }

        func work(rows: Range<Int>) {
            guard let task else { return }
            converter.convert(rows, task)
        }
    }

    /// Output rows `rows` of the task, with one specialized loop per combination.
    private func convert(_ rows: Range<Int>, _ task: Task) {
        if !task.frame.format.isYUV {
            if let transform = tables.wideRGB {
                convertRGB(rows, task, WideRGBStage(transform: transform))
            } else {
                tables.packedRGB!.withStage { convertRGB(rows, task, $0) }
            }
            return
        }
        if let wide = tables.wide {
            wide.withStage { convert(rows, task, $0) }
            return
        }
        tables.packed!.withStage { convert(rows, task, $0) }
    }

    private func convert<S: ColorStage>(_ rows: Range<Int>, _ task: Task, _ stage: S) {
        task.order == .rgba ? convert(rows, task, stage, RGBAPacking.self) : convert(rows, task, stage, BGRAPacking.self)
    }

    private func convert<S: ColorStage, P: ChannelPacking>(_ rows: Range<Int>, _ task: Task, _ stage: S, _: P.Type) {
        if task.mosaic > 1 { return mosaic(rows, task, stage, P.self) }
        let out = pixels.baseAddress!.assumingMemoryBound(to: UInt32.self)
        let (frame, rect) = (task.frame, task.rect)
        let convert = Converter<S, P>(stage: stage)
        let lines = RowLines(frame)
        let yuyv = lines.yuyv
        let width = outputWidth
        let lastColumn = rect.x + rect.width - 1, lastRow = rect.y + rect.height - 1
        for row in rows {
            let o = out + row * width
            if task.halved {
                let r0 = rect.y + 2 * row
                let (a, ac) = lines(r0), (b, bc) = lines(min(r0 + 1, lastRow))
                if yuyv {
                    convert.halvedRow(YUYVLayout.self, a, ac, b, bc, from: rect.x, last: lastColumn, count: width, into: o)
                } else {
                    convert.halvedRow(NV12Layout.self, a, ac, b, bc, from: rect.x, last: lastColumn, count: width, into: o)
                }
            } else {
                let (line, chroma) = lines(rect.y + row)
                if yuyv {
                    convert.row(YUYVLayout.self, line, chroma, from: rect.x, count: width, into: o)
                } else {
                    convert.row(NV12Layout.self, line, chroma, from: rect.x, count: width, into: o)
                }
            }
        }
    }

    /// Output rows `rows` as a mosaic (`task.mosaic` pixels a block), apart from
    /// the plain loops so that theirs stay as tight as they were.
    @inline(never)
    private func mosaic<S: ColorStage, P: ChannelPacking>(_ rows: Range<Int>, _ task: Task, _ stage: S, _: P.Type) {
        let out = pixels.baseAddress!.assumingMemoryBound(to: UInt32.self)
        let (frame, rect) = (task.frame, task.rect)
        let convert = Converter<S, P>(stage: stage)
        let lines = RowLines(frame)
        let yuyv = lines.yuyv
        let width = outputWidth, block = task.mosaic
        for row in rows {
            let o = out + row * width
            if row % block != 0 && row != rows.lowerBound {
                // A block's rows are alike: the row above, already done.
                UnsafeMutableRawPointer(o).copyMemory(from: UnsafeRawPointer(o - width), byteCount: width * 4)
                continue
            }
            let (line, chroma) = lines(rect.y + min((row / block) * block + block / 2, rect.height - 1))
            if yuyv {
                convert.mosaicRow(YUYVLayout.self, line, chroma, from: rect.x, count: width, block: block, into: o)
            } else {
                convert.mosaicRow(NV12Layout.self, line, chroma, from: rect.x, count: width, block: block, into: o)
            }
        }
    }

    private func convertRGB<S: ColorStage>(_ rows: Range<Int>, _ task: Task, _ stage: S) {
        let grey = task.frame.format == .grey
        switch (task.order, grey) {
        case (.rgba, false): convertRGB(rows, task, Converter<S, RGBAPacking>(stage: stage), RGB24Layout.self)
        case (.bgra, false): convertRGB(rows, task, Converter<S, BGRAPacking>(stage: stage), RGB24Layout.self)
        case (.rgba, true): convertRGB(rows, task, Converter<S, RGBAPacking>(stage: stage), GreyLayout.self)
        case (.bgra, true): convertRGB(rows, task, Converter<S, BGRAPacking>(stage: stage), GreyLayout.self)
        }
    }

    /// Output rows `rows` of an RGB24 or GREY frame: whole, halved or as a mosaic.
    private func convertRGB<S: ColorStage, P: ChannelPacking, L: RGBLayout>(_ rows: Range<Int>, _ task: Task, _ convert: Converter<S, P>, _: L.Type) {
        let out = pixels.baseAddress!.assumingMemoryBound(to: UInt32.self)
        let (frame, rect) = (task.frame, task.rect)
        let plane = frame.planes[0]
        let base = plane.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), stride = plane.bytesPerRow
        let width = outputWidth, lastColumn = rect.x + rect.width - 1, lastRow = rect.y + rect.height - 1
        let block = task.mosaic
        for row in rows {
            let o = out + row * width
            if task.halved {
                let r0 = rect.y + 2 * row
                convert.rgbHalvedRow(L.self, base + r0 * stride, base + min(r0 + 1, lastRow) * stride, from: rect.x, last: lastColumn, count: width, into: o)
            } else if block > 1 {
                if row % block != 0 && row != rows.lowerBound {
                    // A block's rows are alike: the row above, already done.
                    UnsafeMutableRawPointer(o).copyMemory(from: UnsafeRawPointer(o - width), byteCount: width * 4)
                    continue
                }
                let line = base + (rect.y + min((row / block) * block + block / 2, rect.height - 1)) * stride
                convert.rgbMosaicRow(L.self, line, from: rect.x, count: width, block: block, into: o)
            } else {
                convert.rgbRow(L.self, base + (rect.y + row) * stride, from: rect.x, count: width, into: o)
            }
        }
    }
}
