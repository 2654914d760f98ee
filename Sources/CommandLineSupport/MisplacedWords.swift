/// Command-line mistakes blamed where they belong: a mistyped command name
/// (`kamera preveiw`, which would otherwise be read as `render` and blame an
/// option of preview's), and options typed before the command (`kamera -v render`).
enum MisplacedWords {
    /// One line for the first such mistake in `arguments`; nil when there is none.
    static func answer(for arguments: [String], commands: [String]) -> String? {
        guard let first = arguments.first else { return nil }
        if !first.hasPrefix("-"), !commands.contains(first), first.count >= 3,
           let near = commands.min(by: { distance(first, $0) < distance(first, $1) }), distance(first, near) <= 2 {
            return "'\(first)' is not a command; did you mean '\(near)'? (kamera --help lists the commands)"
        }
        if first.hasPrefix("-"), let command = arguments.first(where: commands.contains) {
            let rest = arguments.filter { $0 != command }.joined(separator: " ")
            return "the command goes first, then its options: kamera \(command) \(rest)"
        }
        return nil
    }

    /// Edits (insert, delete, replace, swap two neighbours) from `a` to `b`.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1) }
            }
        }
        return rows[a.count][b.count]
    }
}
