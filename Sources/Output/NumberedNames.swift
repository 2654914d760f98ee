/// The names a live run saves under as it goes, numbered from 0001 in a
/// folder (`kamera-snapshot-0001.jpg`, `kamera-recording-0001.mp4`), each
/// number handed out once; the caller skips those a file already has.
struct NumberedNames {
    let folder: String
    let prefix: String
    let fileExtension: String
    private var next = 1
    static let last = 999_999

    init(folder: String, prefix: String, fileExtension: String) {
        (self.folder, self.prefix, self.fileExtension) = (folder, prefix, fileExtension)
    }

    /// The next number's path; nil after the last.
    mutating func nextPath() -> String? {
        guard next <= Self.last else { return nil }
        let name = prefix + Self.number(next) + "." + fileExtension
        next += 1
        return folder == "." ? name : folder + "/" + name
    }

    /// Said when every number is taken.
    func exhausted(_ what: String) -> OutputError {
        OutputError("\(folder): no free \(what) name left from \(prefix)0001.\(fileExtension) to \(prefix)\(Self.last).\(fileExtension); move some away")
    }

    /// `n` with at least four digits: 0001.
    private static func number(_ n: Int) -> String {
        let digits = String(n)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
