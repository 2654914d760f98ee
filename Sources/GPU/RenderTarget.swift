/// Where a render pass draws: an offscreen `Framebuffer`, or the display's
/// scanout surface (GL's default framebuffer), so that the last pass of a
/// frame can land on screen without a copy.
public protocol RenderTarget: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// True when the image's top row goes to GL's row 0: offscreen
    /// framebuffers, so that `glReadPixels` returns the top row first.
    /// False for a screen, which shows GL's last row at its top.
    var topRowFirst: Bool { get }
    /// Binds the target and sets the viewport to cover it.
    func bind()
}

extension RenderTarget {
    /// -1 to flip y in clip space so that the image's top lands on GL's row 0, else 1.
    public var clipYScale: Float { topRowFirst ? -1 : 1 }
}
