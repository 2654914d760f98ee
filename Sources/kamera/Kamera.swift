import ArgumentParser

@main
struct Kamera: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kamera",
        abstract: "Camera preview renderer: frames → texture cache → color-matrix filters → preview or cube → PNG or a live preview.",
        subcommands: [RenderCommand.self, PreviewCommand.self, CubeCommand.self, DevicesCommand.self, ControlsCommand.self, BenchCommand.self],
        defaultSubcommand: RenderCommand.self)
}
