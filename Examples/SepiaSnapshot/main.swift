// Renders one frame of the built-in test pattern through a sepia filter to
// sepia.png, using the Kamera library directly: source → texture cache →
// filters → preview → PNG.
//
//   swift run SepiaSnapshot [output.png]
import Foundation
import KameraKit

let output = CommandLine.arguments.dropFirst().first ?? "sepia.png"
let thread = RenderThread()  // GL calls stay on the thread that owns the context
do {
    try thread.sync {
        let context = try GPUContext()
        let settings = RenderSettings(filters: try FilterChain(parsing: ["sepia", "contrast=1.2"]))
        let renderer = try FrameRenderer(context: context, settings: settings)
        let frame = TestPattern(width: 1280, height: 720, format: .yuyv).frame(at: 0)
        let pixels = try renderer.render(frame, index: 0)
        let size = renderer.outputSize(for: frame)
        try PNGWriter.write(pixels, width: size.width, height: size.height, to: output)
        print("wrote \(output) (\(size.width)x\(size.height)) on \(context.summary)")
    }
} catch {
    print("error: \(error)")
    exit(1)
}
