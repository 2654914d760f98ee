import CommandLineSupport
import ArgumentParser
import DRM
import Pipeline

/// Where `-o kms` shows the picture.
struct DisplayOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "With -o kms: the DRM card, /dev/dri/cardN (default: the first with a connected display).")
    var card: String?

    @Option(parsing: .unconditional, help: "With -o kms: the connector, by name (HDMI-A-1, Virtual-1) or id (default: the first connected).")
    var connector: String?

    @Option(parsing: .unconditional, help: "With -o kms: the mode, WxH or WxH@Hz (default: the display's preferred mode).")
    var mode: String?

    @Flag(help: "With -o kms: legacy mode setting (drmModeSetCrtc and page flips) even where atomic is offered.")
    var legacy = false

    /// Options that only mean something with `-o kms`, when given without it.
    var givenWithoutDisplay: String? {
        [card.map { _ in "--card" }, connector.map { _ in "--connector" }, mode.map { _ in "--mode" }, legacy ? "--legacy" : nil]
            .compactMap { $0 }.first
    }

    /// Opens the card and chooses connector, mode and CRTC; nothing on screen changes yet.
    func choose() throws -> (card: DisplayCard, choice: DisplayChoice) {
        if card == "" { throw UsageError("--card is empty; give a card such as /dev/dri/card0 (see `kamera displays`)") }
        let display = try card.map { try DisplayCard(path: $0, legacy: legacy) } ?? DisplayCard.firstConnected(legacy: legacy)
        let choice = try display.choose(connector: connector, mode: mode)
        try display.becomeMaster()
        return (display, choice)
    }
}
