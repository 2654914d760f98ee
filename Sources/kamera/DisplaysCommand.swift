import CommandLineSupport
import ArgumentParser
import DRM
import Foundation
import Pipeline

/// `kamera displays`: the DRM cards, their connectors (status, modes,
/// preferred) and planes, as `-o kms` sees them.
struct DisplaysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "displays",
        abstract: "List the DRM/KMS displays: cards, connectors (status, modes, preferred) and planes.")

    @Argument(help: "One card to describe (default: every /dev/dri/cardN).")
    var card: String?

    @Flag(help: "Print JSON for scripts.")
    var json = false

    @Flag(help: "List every mode (default: the first 8 of each connector).")
    var allModes = false

    struct Entry: Encodable {
        struct Connector: Encodable {
            var id: UInt32, name: String, status: String, writeback: Bool, crtc: UInt32?
            var preferred: String?, modes: [String]
        }
        struct Plane: Encodable {
            var id: UInt32, type: String, crtc: UInt32, framebuffer: UInt32, formats: [String]
        }
        var card: String, driver: String, atomic: Bool, crtcs: [UInt32]
        var connectors: [Connector], planes: [Plane]
    }

    func run() throws {
        let paths = card.map { [$0] } ?? DRMNode.cards()
        if paths.isEmpty && !json {
            print("no DRM display devices (no /dev/dri/cardN); load the display driver")
            return
        }
        let entries = try paths.compactMap { path -> Entry? in
            let display: DisplayCard
            do {
                display = try DisplayCard(path: path)
            } catch where card == nil {
                return nil  // a render-only or unreadable card, when listing them all
            }
            return Entry(card: path, driver: display.node.driverName, atomic: display.atomic, crtcs: display.crtcs,
                         connectors: display.connectors.map {
                             .init(id: $0.id, name: $0.name, status: $0.status, writeback: $0.isWriteback, crtc: $0.currentCRTC,
                                   preferred: $0.modes.first(where: \.preferred)?.description, modes: $0.modeNames)
                         },
                         planes: display.planes.map {
                             .init(id: $0.id, type: $0.kind.rawValue, crtc: $0.crtcID, framebuffer: $0.framebufferID, formats: $0.formats)
                         })
        }
        if json {
            try printJSON(entries)
            return
        }
        for entry in entries {
            print("\(entry.card): driver \(entry.driver), \(entry.atomic ? "atomic" : "legacy") mode setting, \(entry.crtcs.count) CRTC(s)")
            for c in entry.connectors {
                let kind = c.writeback ? ", writeback" : ""
                print("  connector \(c.name) (id \(c.id)): \(c.status)\(kind)\(c.crtc.map { ", on CRTC \($0)" } ?? "")")
                guard !c.modes.isEmpty else { continue }
                let shown = allModes ? c.modes : Array(c.modes.prefix(8))
                let more = c.modes.count > shown.count ? " and \(c.modes.count - shown.count) more (--all-modes)" : ""
                print("    preferred \(c.preferred ?? "none"); modes: \(shown.joined(separator: ", "))\(more)")
            }
            for p in entry.planes {
                let formats = p.formats.prefix(8).joined(separator: " ") + (p.formats.count > 8 ? " …" : "")
                print("  plane \(p.id): \(p.type)\(p.crtc != 0 ? ", on CRTC \(p.crtc), framebuffer \(p.framebuffer)" : ", unused"); formats \(formats)")
            }
        }
    }
}
