import Capture
import DRM
import GPU
import Messages
import Pixels
import Render

/// Decides where a camera's buffers live so the GPU can read them without a
/// copy: buffers allocated on a DRM device and given to the camera
/// (`V4L2_MEMORY_DMABUF`) first, the camera's own buffers exported
/// (`VIDIOC_EXPBUF`) next, plain mapped buffers (copy) last.
///
/// The GPU is asked what it can import only when a camera asks where its
/// buffers go: making any other source opens no GPU.
final class CameraBufferPlan: CameraBufferPlacement {
    let upload: FrameUploader.Upload
    private let renderer: FrameRenderer
    /// The GPU converts YUV and demosaics raw Bayer, so formats it reads as the
    /// driver gave them are not repacked (not on a software renderer unless
    /// `--yuv-conversion shader`).
    private let convertsOnGPU: Bool
    /// Why the frames will be copied, when they will.
    private(set) var reason: String?
    /// The placement `memory(for:)` chose, once asked.
    private(set) var chosen: CameraMemory?

    init(renderer: FrameRenderer, convertsOnGPU: Bool) {
        self.upload = renderer.settings.upload
        self.renderer = renderer
        self.convertsOnGPU = convertsOnGPU
    }

    var mapsWhenRefused: Bool { upload == .auto && (chosen ?? .mmap) != .mmap }

    func forgetBuffers() { renderer.uploader.forgetImportedBuffers() }

    /// The placement for `mode`; throws when `--upload dmabuf` cannot be had.
    func memory(for mode: CameraMode) throws -> CameraMemory {
        let memory = try choose(for: mode)
        chosen = memory
        return memory
    }

    private func choose(for mode: CameraMode) throws -> CameraMemory {
        let context = try renderer.openContext()
        // The GPU's texture limit: MIPI-packed rows wider than it are unpacked on the CPU.
        let textureLimit = try renderer.uploader.textureLimit
        func copy(_ why: String) throws -> CameraMemory {
            if upload == .dmabuf { throw CaptureError(.upload, "dmabuf", because: "\(why)", "copying the frames would work") }
            reason = "frames are copied: \(why)"
            return .mmap
        }
        guard try renderer.uploader.canImportDMABuf else {
            let hint = context.rendersInSoftware
                ? "a software renderer reads copied frames faster anyway"
                : "a GPU's display opened on its card (EGL platform gbm:/dev/dri/cardN) usually can"
            return try copy("the EGL display (\(context.platform)) cannot import dma-bufs (no EGL_EXT_image_dma_buf_import); \(hint)")
        }
        let fourcc = mode.fourcc.trimmingCharacters(in: .whitespaces)
        if mode.isCompressed { return try copy("\(fourcc) frames are compressed and decoded on the CPU") }
        if mode.isConverted(convertsOnGPU: convertsOnGPU) {
            let why = mode.repacked?.mosaic != nil ? " (raw Bayer is demosaiced on the CPU here, as on a software renderer or with \(Setting.yuvConversion) cpu; \(Setting.yuvConversion) shader demosaics on the GPU)"
                : mode.repacked?.readOnGPU?.isYUV == true ? " (YUV is converted on the CPU here, as on a software renderer or with \(Setting.yuvConversion) cpu; \(Setting.yuvConversion) shader converts \(fourcc) on the GPU as it is)"
                : mode.repacked?.readOnGPU != nil ? " (other formats are repacked on the CPU where YUV is converted there, as on a software renderer or with \(Setting.yuvConversion) cpu; \(Setting.yuvConversion) shader reads \(fourcc) on the GPU as it is)"
                : ""
            return try copy("\(fourcc) frames are converted on the CPU into memory of Kamera's own\(why)")
        }
        let format = mode.handedOn(convertsOnGPU: convertsOnGPU)
        if let bits = format.mipiBits, let why = FrameUploader.packedRowProblem(width: mode.width, bits: bits, textureLimit: textureLimit) {
            return try copy(why)
        }
        if let why = FrameUploader.notImported(format, glesMajorVersion: context.glesMajorVersion, fourcc: fourcc) { return try copy(why) }
        if upload == .auto && !convertsOnGPU && YUVToRGBA.formats.contains(format) {
            // An imported frame would have to be converted by the GPU's shader, which on
            // a software renderer is many times slower than the CPU's conversion of a copy.
            return try copy("\(fourcc) frames are converted on the CPU here, from a copy (as on a software renderer or with \(Setting.yuvConversion) cpu); \(Setting.yuvConversion) shader or \(Setting.upload) dmabuf imports them for the GPU to read")
        }
        if let node = allocatingNode(context) { return .drm(node) }
        if context.rendersInSoftware {
            // Measured: Mesa's llvmpipe imports the camera's own exported buffers but
            // crashes or reads black when sampling them; DRM-allocated ones work.
            return try copy("\(context.renderer) cannot read buffers the camera exports (EXPBUF), and no /dev/dri/cardN can allocate buffers for the camera")
        }
        return .exported
    }

    /// The DRM node to allocate on: the GPU's own card when it renders through
    /// GBM on one, else the first card that offers dumb buffers.
    private func allocatingNode(_ context: GPUContext) -> String? {
        if context.platform.hasPrefix("gbm:/dev/dri/card") { return String(context.platform.dropFirst(4)) }
        return DRMNode.firstWithDumbBuffers()
    }
}
