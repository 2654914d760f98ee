import Filters
import GPU

/// The last draw of a frame: the picture laid out on the output (the
/// preview, fitted, rotated and mirrored; or the spinning cube), through the
/// color matrix left at the end of the filter chain, which so costs no pass.
public protocol LayoutStage: AnyObject {
    /// Draws `picture` over all of `target`, `matrix` applied to every pixel.
    func draw(_ picture: TextureView, matrix: ColorMatrix, into target: RenderTarget, _ frame: StageFrame)
    /// Output pixels per picture pixel (the smaller along the two axes) for a
    /// `width` x `height` picture on an output of `outputWidth` x `outputHeight`:
    /// under 1/√2 the picture may be converted at half size.
    func magnification(width: Int, height: Int, outputWidth: Int, outputHeight: Int) -> Float
}

/// Draws over the laid-out picture: boxes and labels that follow what an
/// analyser found. Runs after the layout, on the output itself.
public protocol OverlayStage: AnyObject {
    func draw(onto target: RenderTarget, _ frame: StageFrame) throws
}
