import Analysis
import COpenCVFaces
import Foundation
import Render

/// Finds frontal faces with OpenCV's cascade classifier (Debian's
/// `libopencv-objdetect-dev`, through a one-file C++ shim, `COpenCVFaces`) and
/// a cascade `opencv-data` installs (`FaceModel`; scales 1.2 apart, 3 neighbours): on the luma looked at with its
/// longer side at most 640 pixels, histogram-equalized, faces from 24 of those
/// pixels up. The classifier gives a box only: no roll or yaw.
public final class FaceDetector {
    /// The longer side of the picture the classifier looks at.
    static let analysedSide = 640
    static let smallestFace = 24

    private let faces: OpaquePointer
    /// 2: the scales taken in turn by the analysis thread and a second one
    /// for each frame, started and joined within `detect` (the same faces
    /// as one thread finds); 1 on a one-core machine.
    public let threads: Int

    public convenience init(model: FaceModel = .haar, threads: Int? = nil) throws {
        try self.init(cascade: model.cascade, threads: threads)
    }

    public init(cascade: String, threads: Int? = nil) throws {
        self.threads = max(1, min(2, threads ?? sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        guard FileManager.default.fileExists(atPath: cascade) else {
            throw AnalysisError("the face cascade \(cascade) is missing; install the Debian package opencv-data")
        }
        var error = [CChar](repeating: 0, count: 256)
        guard let faces = kamera_faces_new(cascade, &error, error.count) else {
            throw AnalysisError("the face cascade \(cascade): \(String(cString: error))")
        }
        self.faces = faces
    }

    deinit { kamera_faces_free(faces) }

    /// The faces in `image`, in source pixels.
    public func detect(_ image: LumaImage) throws -> [DetectedObject] {
        let scale = min(1, Double(Self.analysedSide) / Double(max(image.width, image.height)))
        let count = kamera_faces_detect(faces, image.pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width),
                                        scale, Int32(Self.smallestFace), Int32(threads))
        guard count >= 0 else { throw AnalysisError("the face detector failed: \(String(cString: kamera_faces_error(faces)))") }
        var box = [Int32](repeating: 0, count: 4)
        return (0..<count).map { i in
            kamera_faces_box(faces, i, &box)
            return DetectedObject(type: "face", bounds: PixelBox(x: Int(box[0]), y: Int(box[1]), width: Int(box[2]), height: Int(box[3])))
        }
    }
}
