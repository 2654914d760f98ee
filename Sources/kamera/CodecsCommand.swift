import ArgumentParser
import Output

/// `kamera codecs`: the video codecs this machine's FFmpeg libraries encode, and the containers each goes in.
struct CodecsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codecs",
        abstract: "List the video codecs this machine can record (-o NAME.mp4 --codec ...), their encoders and containers.",
        discussion: """
        Examples:
          kamera codecs
          kamera render --codec help
        """)

    func run() throws {
        print(CodecListing.text)
    }
}

/// The listing `kamera codecs` and `--codec help` print.
enum CodecListing {
    static var text: String {
        var rows = [["CODEC", "ENCODERS INSTALLED", "CONTAINERS", "NOTE"]]
        for codec in VideoCodec.allCases {
            let software = codec.softwareEncoders.filter(VideoCodec.isInstalled)
            let hardware = codec.hardwareEncoders.filter(VideoCodec.isInstalled)
            let encoders = software + hardware.map { $0 + " (hardware)" }
            let containers = VideoContainer.allCases.filter { $0.codecs.contains(codec) }
                .map { "." + $0.rawValue + ($0.defaultCodec == codec ? " (default)" : "") }
            let note = codec == .ffv1 ? "lossless, stores RGB (bgr0): decodes to the rendered pixels exactly" : codec == .mjpeg ? "4:2:0, full range" : "4:2:0, limited range"
            rows.append([codec.rawValue, encoders.isEmpty ? "none" : encoders.joined(separator: ", "), containers.joined(separator: ", "), note])
        }
        let widths = (0..<3).map { column in rows.map { $0[column].count }.max()! }
        return rows.map { row in
            (0..<3).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ") + "  " + row[3]
        }.joined(separator: "\n") + "\nHardware encoders are used only when named (--codec h264_nvenc); they need the machine's GPU and driver."
    }
}
