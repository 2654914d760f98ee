import CPNG
import Glibc

/// Writes RGBA pixels to a PNG file through libpng. The file is written under
/// a temporary name in the same folder and renamed into place, so an
/// interrupted run never leaves a truncated PNG behind.
public enum PNGWriter {
    /// Writes `width` x `height` RGBA pixels (rows top first, tightly packed).
    public static func write(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, to path: String) throws {
        precondition(pixels.count >= width * height * 4)
        try checkFolder(of: path)
        let temporary = "\(path).\(getpid()).tmp"
        guard let file = fopen(temporary, "wb") else {
            throw OutputError("\(path): cannot write: \(String(cString: strerror(errno)))")
        }
        var image = png_image()
        image.version = kamera_png_image_version
        image.width = png_uint_32(width)
        image.height = png_uint_32(height)
        image.format = kamera_png_format_rgba
        let ok = png_image_write_to_stdio(&image, file, 0, pixels.baseAddress, Int32(width * 4), nil)
        let flushed = fflush(file) == 0 && fsync(fileno(file)) == 0
        fclose(file)
        guard ok != 0, flushed else {
            unlink(temporary)
            let message = withUnsafeBytes(of: &image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw OutputError("\(path): cannot write PNG: \(message.isEmpty ? String(cString: strerror(errno)) : message)")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw OutputError("\(path): cannot write: \(reason)")
        }
    }

    /// Fails early, with a clear message, when the folder is missing or not writable.
    public static func checkFolder(of path: String) throws {
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let dir = folder.isEmpty ? "/" : folder
        var info = stat()
        guard stat(dir, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw OutputError("\(path): the folder '\(dir)' does not exist; create it first")
        }
        guard access(dir, W_OK) == 0 else {
            throw OutputError("\(path): the folder '\(dir)' is not writable")
        }
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw OutputError("\(path): is a folder; give a file name such as \(path)/frame.png")
        }
    }
}
