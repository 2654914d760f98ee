import CALSA
import Foundation

/// An ALSA capture device, as `kamera devices --audio` lists it.
public struct AudioDevice: Equatable, Sendable, Codable {
    /// `hw:1,0`.
    public var name: String
    public var card: Int
    public var device: Int
    /// The card's id and name, `Loopback` / `Loopback`.
    public var cardID: String
    public var cardName: String
    /// The PCM's own name, `Loopback PCM`.
    public var pcmName: String

    /// Every capture PCM of every sound card.
    public static func list() -> [AudioDevice] {
        kamera_alsa_quiet()
        var devices: [AudioDevice] = []
        var card: Int32 = -1
        while snd_card_next(&card) == 0 && card >= 0 {
            var control: OpaquePointer?
            guard snd_ctl_open(&control, "hw:\(card)", 0) == 0, let control else { continue }
            defer { snd_ctl_close(control) }
            var cardInfo: OpaquePointer?
            snd_ctl_card_info_malloc(&cardInfo)
            defer { snd_ctl_card_info_free(cardInfo) }
            guard snd_ctl_card_info(control, cardInfo) == 0 else { continue }
            let cardID = String(cString: snd_ctl_card_info_get_id(cardInfo))
            let cardName = String(cString: snd_ctl_card_info_get_name(cardInfo))
            var device: Int32 = -1
            var pcmInfo: OpaquePointer?
            snd_pcm_info_malloc(&pcmInfo)
            defer { snd_pcm_info_free(pcmInfo) }
            while snd_ctl_pcm_next_device(control, &device) == 0 && device >= 0 {
                snd_pcm_info_set_device(pcmInfo, UInt32(device))
                snd_pcm_info_set_subdevice(pcmInfo, 0)
                snd_pcm_info_set_stream(pcmInfo, SND_PCM_STREAM_CAPTURE)
                guard snd_ctl_pcm_info(control, pcmInfo) == 0 else { continue }
                devices.append(AudioDevice(name: "hw:\(card),\(device)", card: Int(card), device: Int(device), cardID: cardID,
                                           cardName: cardName, pcmName: String(cString: snd_pcm_info_get_name(pcmInfo))))
            }
        }
        return devices
    }

    /// ALSA's devices by name rather than card, that record: `default` (the
    /// system's: PipeWire or PulseAudio when they run, else the first card)
    /// and the sound servers' own (`pipewire`, `pulse`), with their descriptions.
    public static func named(cards: [AudioDevice]) -> [(name: String, description: String)] {
        kamera_alsa_quiet()
        var found: [(name: String, description: String)] = []
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        if snd_device_name_hint(-1, "pcm", &hints) == 0, let hints {
            defer { snd_device_name_free_hint(hints) }
            var at = hints
            while let hint = at.pointee {
                defer { at += 1 }
                func value(_ key: String) -> String? {
                    guard let text = snd_device_name_get_hint(hint, key) else { return nil }
                    defer { free(text) }
                    return String(cString: text)
                }
                guard let name = value("NAME"), !name.contains(":"), name != "null", value("IOID").map({ $0 == "Input" }) ?? true else { continue }
                let description = (value("DESC") ?? "").split(whereSeparator: \.isNewline).joined(separator: ", ")
                found.append((name, description))
            }
        }
        if !found.contains(where: { $0.name == "default" }), !cards.isEmpty || !found.isEmpty {
            found.insert(("default", "the system's default device (ALSA's default: the first card here)"), at: 0)
        }
        return found
    }

    /// For messages: `hw:0,0 (Loopback PCM), hw:0,1 (...)`, or that there is none.
    public static func listing() -> String {
        let all = list()
        return all.isEmpty ? "none found (no sound card with a capture device)" : all.map { "\($0.name) (\($0.pcmName))" }.joined(separator: ", ")
    }
}
