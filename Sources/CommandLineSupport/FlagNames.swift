/// The library says what went wrong in its own terms; the command line says
/// which option it was. The phrases the library starts its messages with,
/// and the option each one means.
enum FlagNames {
    static let prefixes: [(library: String, flag: String)] = [
        ("dma-buf import required, but ", "--upload dmabuf: "),
        ("golden image ", "--expect "),
        ("uniform ", "--uniform "),
        ("the EGL platform ", "--gpu "),
        ("control assignment ", "--set "),
        ("connector ", "--connector "),
        ("display mode ", "--mode "),
    ]

    /// `message` with a library phrase at its start replaced by the option's name.
    static func mapped(_ message: String) -> String {
        for (library, flag) in prefixes where message.hasPrefix(library) {
            return flag + message.dropFirst(library.count)
        }
        return message
    }
}
