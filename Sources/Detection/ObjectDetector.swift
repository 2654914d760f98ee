import Analysis
import Foundation
import Messages
import Output
import Pixels
import Render

/// `--detect faces,codes`: what is in the picture, as the `objects` of each
/// metadata line. Runs its detectors on the frame's luma on the analysis
/// thread, numbers what they find (`ObjectTracker`) and places it on the
/// output (`LumaImage.geometry`).
public final class ObjectDetector: ObjectFinder {
    public let name = "objects"

    public static let kind = AnalyzerKind(name: "objects", summary: "faces and codes in the picture, numbered while they stay in view",
                                          takesValues: true) { values in
        let request = try DetectionRequest(parsing: values)
        return AnalyzerRequest(name: "objects", finds: request.finds) { try ObjectDetector(request) }
    }
    /// What `--detect` asked for.
    public let request: DetectionRequest
    private let faces: FaceDetector?
    private let codes: CodeReader?
    private let tracker = ObjectTracker()
    /// Told, on the analysis thread, when a frame's codes are lost (zxing-cpp aborted or hung on it).
    public var onNote: ((String) -> Void)?
    /// Frames whose codes were lost that way.
    public var lostPictures: Int { codes?.lostPictures ?? 0 }
    /// The programs zxing-cpp's helpers were started from: kamera-zxing-helper
    /// where it is installed, else this executable; empty before one is started.
    public var codeReaderPrograms: [String] { codes?.helperPrograms.filter { !$0.isEmpty } ?? [] }

    /// `codeThreads`: how many threads read codes at once (at most 2; by default 2 on a machine of two cores or more).
    public init(_ request: DetectionRequest, codeThreads: Int? = nil) throws {
        self.request = request
        faces = request.faces ? try FaceDetector(model: request.faceModel) : nil
        codes = request.codeFormats.isEmpty ? nil : try CodeReader(formats: request.codeFormats, threads: codeThreads)
        codes?.onLostPicture = { [weak self] why in
            self?.onNote?("\(Setting.detect) codes: \(why); its codes are skipped, and the next picture is read by a new zxing-cpp")
        }
    }

    public func analyze(_ image: LumaImage) throws -> any AnalysisResult {
        var objects = try faces?.detect(image) ?? []
        objects += try codes?.read(image) ?? []
        tracker.assign(&objects, at: image.time)
        if let geometry = image.geometry {
            for i in objects.indices {
                objects[i].outputBounds = geometry.outputBox(objects[i].bounds)
                objects[i].outputCorners = objects[i].corners.map { geometry.outputPoint(x: $0.x, y: $0.y) }
            }
        }
        return DetectedObjects(objects)
    }
}

/// What `--detect` names: `faces` (or `faces=haar|lbp`), `codes`, or `codes=qr,aztec,...`, comma-separated.
public struct DetectionRequest: Equatable, Sendable {
    /// The code formats read; empty for none.
    public var codeFormats: [CodeFormat] = []
    public var faces = false
    public var faceModel = FaceModel.haar

    public init(codeFormats: [CodeFormat] = [], faces: Bool = false, faceModel: FaceModel = .haar) {
        (self.codeFormats, self.faces, self.faceModel) = (codeFormats, faces, faceModel)
    }

    public static let kinds = "faces, faces=MODEL (\(FaceModel.names)), codes, codes=FORMAT,FORMAT... (formats: \(CodeFormat.names))"

    /// Parses every `--detect` given (`codes=qr,aztec` takes the formats after it up to the next kind).
    public init(parsing values: [String]) throws {
        var inCodes = false
        var named: [CodeFormat] = []
        for part in values.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
            let word = part.trimmingCharacters(in: .whitespaces).lowercased()
            if word == "faces" || word == "face" {
                faces = true
                inCodes = false
            } else if word.hasPrefix("faces=") || word.hasPrefix("face=") {
                let model = Self.value(of: word)
                guard let m = FaceModel(rawValue: model) else {
                    throw AnalysisError(.detect, "faces=\(excerpt(model))", because: "no such face model", "models: \(FaceModel.names)")
                }
                faces = true
                faceModel = m
                inCodes = false
            } else if word == "codes" || word == "code" {
                named += CodeFormat.allCases
                inCodes = false
            } else if word.hasPrefix("codes=") || word.hasPrefix("code=") {
                let format = Self.value(of: word)
                guard let f = CodeFormat(rawValue: format) else { throw Self.unknownFormat(format) }
                named.append(f)
                inCodes = true
            } else if inCodes, let f = CodeFormat(rawValue: word) {
                named.append(f)
            } else if word.isEmpty {
                throw AnalysisError(.detect, does: "has an empty item (two commas, or one at an end)", "use \(Self.kinds)")
            } else if inCodes {
                throw Self.unknownFormat(word)
            } else {
                throw AnalysisError(.detect, "\(excerpt(word))", is: "not something Kamera detects", "use \(Self.kinds)")
            }
        }
        codeFormats = CodeFormat.allCases.filter(named.contains)
        if codeFormats.isEmpty && !faces { throw AnalysisError(.detect, is: "empty", "use \(Self.kinds)") }
    }

    /// What follows the `=` of `kind=value`.
    private static func value(of word: String) -> String {
        String(word[word.index(after: word.firstIndex(of: "=")!)...])
    }

    private static func unknownFormat(_ name: String) -> AnalysisError {
        AnalysisError(.detect, "codes=\(excerpt(name))", because: "no such code format", "formats: \(CodeFormat.names)")
    }

    public var isEmpty: Bool { codeFormats.isEmpty && !faces }

    /// What it finds.
    public var finds: Findings { (faces ? Findings.faces : Findings()).union(codeFormats.isEmpty ? Findings() : Findings.codes) }
}
