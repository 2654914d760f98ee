import Lifecycle

extension CameraSource {
    /// The processes that have `path` open, e.g. "kamera (pid 123)", when /proc tells.
    public static func holders(of path: String) -> String? {
        FileHolders.summary(of: path)
    }
}
