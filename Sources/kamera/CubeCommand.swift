import Render
import CommandLineSupport
import ArgumentParser

/// `kamera cube`: the live preview drawing the spinning cube (CubeKamera).
struct CubeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cube",
        abstract: "Live spinning cube textured with the frame, full screen on the console's display (-o kms) or offscreen: the same as `kamera preview --cube`.",
        usage: "kamera cube <options>",
        discussion: """
        Examples:
          kamera cube -o kms
          kamera cube -o kms --camera /dev/video0 --filter sepia
          kamera cube --frames 30 -o cube.png
        """)

    @OptionGroup var preview: PreviewCommand

    func run() throws {
        var command = preview
        command.pipeline.cube = true
        try command.run()
    }
}
