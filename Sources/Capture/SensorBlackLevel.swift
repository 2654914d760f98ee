import Glibc
import Messages

/// The black level of a raw camera whose user gave none: the pedestal its
/// sensor adds to every sample, from the sensor's datasheet, found by the
/// sensor's model in the camera's media graph (as libcamera does; V4L2 has no
/// control for it). Cameras whose sensor Kamera does not know get 0.
public struct SensorBlackLevel: Equatable, Sendable {
    /// The level in the format's units.
    public var level: Int
    public var bits: Int
    /// Where it came from: the sensor, or why none was found.
    public var source: String

    /// For `-v`: "black level 64 at 10 bits: the imx219 sensor's (…)".
    public var reason: String { "black level \(level) at \(bits) bits: \(source)" }

    /// Datasheet pedestals by sensor model, in 16-bit units (64 at 10 bits is 4096).
    static let knownSensors: [String: Int] = [
        "ar0144": 2688,  // 168 at 12 bits
        "gc05a2": 4096, "gc08a3": 4096,
        "imx214": 4096, "imx219": 4096, "imx258": 4096, "imx477": 4096, "imx708": 4096, "ov5675": 4096,  // 64 at 10 bits
        "imx283": 3200, "imx335": 3200,  // 50 at 10 bits
        "imx290": 3840, "imx327": 3840, "imx462": 3840,  // 240 at 12 bits
        "ov4689": 1024,  // 64 at 12 bits
        "ov5640": 1024, "ov5647": 1024,  // 16 at 10 bits
    ]

    /// A sensor entity's model: its name up to the I2C address drivers add ("imx219 10-0010" is "imx219").
    public static func model(ofEntity name: String) -> String {
        String(name.split(separator: " ").first ?? "").lowercased()
    }

    /// The pedestal of sensor `model` at `bits` bits, nil when Kamera does not know the sensor.
    public static func level(model: String, bits: Int) -> Int? {
        knownSensors[model].map { $0 >> (16 - bits) }
    }

    /// The black levels for the camera at `path` giving samples of each of
    /// `bits`: its sensor's, found through `found`'s graph (nil: the camera has
    /// no media controller).
    public static func of(camera path: String, bits: [Int], in found: (graph: MediaGraph, device: dev_t)?) -> [SensorBlackLevel] {
        func none(_ why: String) -> [SensorBlackLevel] {
            bits.map { SensorBlackLevel(level: 0, bits: $0, source: why + "; \(Setting.blackLevel) N sets one") }
        }
        guard let (graph, device) = found else { return none("\(path) has no media controller graph to name its sensor") }
        let sensors = graph.sensors(feeding: device) ?? []
        guard let sensor = sensors.first else { return none("no sensor feeds \(path) in \(graph.path) (\(graph.model))") }
        guard Set(sensors.map { Self.model(ofEntity: $0.name) }).count == 1 else {
            return none("\(sensors.count) sensors can feed \(path) in \(graph.path) (\(sensors.map { "\"\($0.name)\"" }.joined(separator: ", "))) and none is linked to it")
        }
        let model = model(ofEntity: sensor.name)
        guard knownSensors[model] != nil else {
            return none("sensor \"\(sensor.name)\" in \(graph.path) is not one whose black level Kamera knows")
        }
        return bits.map { SensorBlackLevel(level: level(model: model, bits: $0)!, bits: $0, source: "the \(model) sensor's (\"\(sensor.name)\" in \(graph.path))") }
    }

    /// The black level for the camera at `path` giving `bits`-bit samples, its media graph looked up.
    public static func of(camera path: String, bits: Int) -> SensorBlackLevel {
        of(camera: path, bits: [bits], in: MediaGraph.holding(videoNode: path))[0]
    }

    /// One line for `kamera devices --formats`: the black level at each of `bits` and where it comes from.
    public static func summary(camera path: String, bits: [Int]) -> String {
        let levels = of(camera: path, bits: bits, in: MediaGraph.holding(videoNode: path))
        guard let first = levels.first else { return "" }
        return "black level " + levels.map { "\($0.level) at \($0.bits) bits" }.joined(separator: ", ") + ": " + first.source
    }
}
