import DRM

/// Where `-o kms` shows the picture: a card, a connector, a mode, or the first that works.
public struct DisplayRequest: Equatable {
    /// `/dev/dri/cardN`; nil for the first card with a connected display.
    public var card: String?
    /// A connector's name or id; nil for the first connected.
    public var connector: String?
    /// `WxH` or `WxH@Hz`; nil for the display's preferred mode.
    public var mode: String?
    /// Legacy mode setting even where atomic is offered.
    public var legacy = false
    /// Keep the last frame on screen until the run is stopped (Ctrl-C,
    /// SIGTERM) rather than giving the console back when the frames end.
    public var hold = false

    public init() {}

    /// Opens the card and chooses connector, mode and CRTC; nothing on screen changes yet.
    public func choose() throws -> (card: DisplayCard, choice: DisplayChoice) {
        if card == "" { throw OutputError("the display card is empty; give a card such as /dev/dri/card0 (see `kamera displays`)") }
        let display = try card.map { try DisplayCard(path: $0, legacy: legacy) } ?? DisplayCard.firstConnected(legacy: legacy)
        let choice = try display.choose(connector: connector, mode: mode)
        try display.becomeMaster()
        return (display, choice)
    }
}
