import Analysis
import CommandLineSupport
import Detection
import Foundation
import Lifecycle
import Pipeline

/// How many faces each face model finds, and how many it sees where there
/// is none: scikit-image's LFW subset (`lfw_subset.npy` in Debian's
/// `python3-skimage`: 100 faces, then 100 non-faces, 25x25 grey crops),
/// each crop enlarged 4 times onto a 180x180 frame of its mean grey, all 200
/// as one Y4M clip that `kamera render --detect faces=MODEL` reads whole.
struct FaceSetBenchmark {
    var kamera: URL
    /// The `.npy` file: float64 values 0...1, shape (200, 25, 25).
    var set: URL

    static let side = 25, scale = 4, frame = 180

    /// The crops of a NumPy `.npy` file of little-endian float64 (`<f8`) in C order, shape (N, 25, 25).
    static func crops(_ data: Data) throws -> [[UInt8]] {
        let bytes = [UInt8](data)
        guard bytes.count > 12, bytes[0] == 0x93, Array(bytes[1...5]) == Array("NUMPY".utf8) else {
            throw BenchError("the face set is not a NumPy .npy file")
        }
        // Version 1 has a 2-byte header length, later versions a 4-byte one, little-endian.
        let lengthBytes = bytes[6] == 1 ? 2 : 4, headerStart = 8 + lengthBytes
        let headerLength = bytes[8..<headerStart].reversed().reduce(0) { $0 << 8 | Int($1) }
        let start = min(bytes.count, headerStart + headerLength)
        let header = String(decoding: bytes[headerStart..<start], as: UTF8.self)
        guard header.contains("'<f8'"), header.contains("'fortran_order': False"),
              let shape = header.range(of: #"\(\d+, 25, 25\)"#, options: .regularExpression),
              let count = Int(header[shape].dropFirst().prefix { $0.isNumber }) else {
            throw BenchError("the face set's .npy header is not float64 crops of 25x25: \(header.prefix(120))")
        }
        let pixels = side * side
        guard count > 0, count <= 10_000, bytes.count >= start + count * pixels * 8 else {
            throw BenchError("the face set's .npy file is shorter than its header says")
        }
        return data.withUnsafeBytes { raw in
            (0..<count).map { n in
                (0..<pixels).map { i in
                    let bits = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start + (n * pixels + i) * 8, as: UInt64.self))
                    return UInt8(max(0, min(255, (Double(bitPattern: bits) * 255).rounded())))
                }
            }
        }
    }

    /// The clip: each crop enlarged in the middle of a frame of its mean grey; chroma neutral, full range.
    static func clip(_ crops: [[UInt8]]) -> Data {
        var data = Data("YUV4MPEG2 W\(frame) H\(frame) F30:1 Ip A1:1 C420jpeg XCOLORRANGE=FULL\n".utf8)
        let chroma = [UInt8](repeating: 128, count: 2 * (frame / 2) * (frame / 2))
        let offset = (frame - side * scale) / 2
        for crop in crops {
            let mean = UInt8(crop.reduce(0) { $0 + Int($1) } / crop.count)
            var luma = [UInt8](repeating: mean, count: frame * frame)
            for y in 0..<(side * scale) {
                for x in 0..<(side * scale) {
                    luma[(offset + y) * frame + offset + x] = crop[(y / scale) * side + x / scale]
                }
            }
            data.append(contentsOf: Array("FRAME\n".utf8))
            data.append(contentsOf: luma)
            data.append(contentsOf: chroma)
        }
        return data
    }

    func run(in folder: String) throws -> [String] {
        var lines = ["Face models on scikit-image's LFW subset (\(set.path)): faces found in the first half, frames with a face in the second (none has one):"]
        guard let data = try? Data(contentsOf: set) else {
            return lines + ["  not measured: no \(set.path) (scripts/bench.sh takes it from Debian's python3-skimage)"]
        }
        let crops = try Self.crops(data)
        let half = crops.count / 2
        let clip = (folder as NSString).appendingPathComponent("faces.y4m")
        try Self.clip(crops).write(to: URL(fileURLWithPath: clip))
        for model in FaceModel.allCases {
            let metadata = (folder as NSString).appendingPathComponent("faces-\(model).jsonl")
            let result = try ChildProcess(executable: kamera.path, arguments: [
                "render", "--input", clip, "--crop", "none", "--frames", "\(crops.count)", "--detect", "faces=\(model)",
                "--metadata", metadata, "-o", "/dev/null", "--stream", "y4m", "--quiet"]).run()
            guard result.status == 0 else {
                lines.append("  \(model): failed with status \(result.status): \(result.output.split(separator: "\n").last ?? "")")
                continue
            }
            var withFace = Set<Int>()
            for line in try String(contentsOfFile: metadata, encoding: .utf8).split(separator: "\n") {
                guard let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let frame = record["frame"] as? Int, let objects = record["objects"] as? [Any], !objects.isEmpty else { continue }
                withFace.insert(frame)
            }
            let found = withFace.filter { $0 < half }.count, wrong = withFace.filter { $0 >= half }.count
            lines.append("  \(String(describing: model).padded(6))\(found) of \(half) faces found, \(wrong) of \(crops.count - half) non-faces with a face"
                         + String(format: " (%.2f s for the %d frames)", result.seconds, crops.count))
        }
        return lines
    }
}
