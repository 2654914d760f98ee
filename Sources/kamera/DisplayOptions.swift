import CommandLineSupport
import ArgumentParser
import DRM
import Output
import Pipeline

/// Where `-o kms` shows the picture.
struct DisplayOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "With -o kms: the DRM card, /dev/dri/cardN (default: the first with a connected display).", completion: Completions.card)
    var card: String?

    @Option(parsing: .unconditional, help: "With -o kms: the connector, by name (HDMI-A-1, Virtual-1) or id (default: the first connected).")
    var connector: String?

    @Option(parsing: .unconditional, help: "With -o kms: the mode, WxH or WxH@Hz (default: the display's preferred mode).")
    var mode: String?

    @Flag(help: "With -o kms: legacy mode setting (drmModeSetCrtc and page flips) even where atomic is offered.")
    var legacy = false

    @Flag(help: "With -o kms: keep the last frame on screen until Ctrl-C or SIGTERM, rather than giving the console back when the frames end (a still on a kiosk: --input logo.png --frames 1 --hold).")
    var hold = false

    /// Options that only mean something with `-o kms`, when given without it.
    var givenWithoutDisplay: String? {
        [card.map { _ in "--card" }, connector.map { _ in "--connector" }, mode.map { _ in "--mode" }, legacy ? "--legacy" : nil, hold ? "--hold" : nil]
            .compactMap { $0 }.first
    }

    /// Where `-o kms` shows the picture.
    var request: DisplayRequest {
        var request = DisplayRequest()
        (request.card, request.connector, request.mode, request.legacy, request.hold) = (card, connector, mode, legacy, hold)
        return request
    }
}
