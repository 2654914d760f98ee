import Foundation

/// Where a line of a prepared shader came from: a file and its line, or the
/// prolog Kamera generated (file `nil`).
public struct ShaderLineOrigin: Equatable, Sendable {
    public var file: String?
    public var line: Int
}

/// A user's shader with its `#include`s expanded and its `#version` taken
/// out, every line remembering its file and line for error messages.
public struct ShaderBody: Equatable, Sendable {
    public var lines: [String]
    public var origins: [ShaderLineOrigin]
    /// 100 or 300 (`#version 300 es`); nil when the file names none.
    public var version: Int?
    /// Every file read, the main one first (what `--watch` watches).
    public var files: [String]
}

/// Expands `#include "file.glsl"` (or `<file.glsl>`) relative to the
/// including file, then in `includePaths`; rejects cycles, printing the chain.
public struct ShaderPreprocessor {
    public var includePaths: [String]
    /// The most files and nesting one shader may pull in.
    public static let maxFiles = 256
    public static let maxDepth = 32
    /// The most lines the expanded text may have: a file included twice by
    /// each of a chain of files doubles at each step.
    public static let maxLines = 1 << 18
    /// The most `#include` lines followed in one shader.
    public static let maxIncludes = 4096

    public init(includePaths: [String] = []) {
        self.includePaths = includePaths
    }

    /// Reads and expands `path`.
    public func load(_ path: String) throws -> ShaderBody {
        let text = String(decoding: try SmallFile.read(path), as: UTF8.self)
        return try expand(text, path: path)
    }

    /// Expands `source`, read from `path` (includes resolve against its folder).
    public func expand(_ source: String, path: String) throws -> ShaderBody {
        var body = ShaderBody(lines: [], origins: [], version: nil, files: [path])
        var texts: [String: String] = [:]
        var includes = 0
        try append(source, path: path, chain: [path], into: &body, texts: &texts, includes: &includes)
        return body
    }

    /// Appends `source`'s lines, expanding includes; `texts` keeps each file
    /// read once, `includes` counts the includes followed.
    private func append(_ source: String, path: String, chain: [String], into body: inout ShaderBody,
                        texts: inout [String: String], includes: inout Int) throws {
        // By scalars: as Characters, "\r\n" is one and would not split at "\n".
        let text = source.hasPrefix("\u{FEFF}") ? String(source.dropFirst()) : source  // a byte-order mark
        let lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        guard body.lines.count + lines.count <= Self.maxLines else {
            throw FilterError("\(chain.first ?? path): with its includes the shader is over \(Self.maxLines) lines (\(path) is included again and again); include each file once, behind an #ifndef guard")
        }
        for (index, raw) in lines.enumerated() {
            // A lone carriage return ends a line for some compilers: a space keeps the numbering ours.
            let line = String(String.UnicodeScalarView(raw.last == "\r" ? raw.dropLast() : raw)).replacingOccurrences(of: "\r", with: " ")
            let number = index + 1
            if let bad = line.unicodeScalars.first(where: { ($0.value < 0x20 && $0 != "\t" && $0 != "\u{0B}" && $0 != "\u{0C}") || $0.value == 0x7F }) {
                throw FilterError("\(path):\(number): holds the control byte 0x\(String(format: "%02X", bad.value)); a shader is text")
            }
            if line.unicodeScalars.contains("\u{FFFD}") {
                throw FilterError("\(path):\(number): is not UTF-8 text; a shader is text (ASCII, or UTF-8 in comments)")
            }
            let directive = Self.directive(line)
            if let directive, directive.name == "version" {
                if chain.count == 1, body.version == nil {
                    body.version = directive.argument.hasPrefix("300") ? 300 : directive.argument.hasPrefix("100") ? 100 : nil
                    if body.version == nil {
                        throw FilterError("\(path):\(number): #version \(directive.argument) is not supported; use #version 100 or #version 300 es")
                    }
                }
                // The prolog puts the version first; the line stays, blank, to keep the numbering.
                body.lines.append("")
                body.origins.append(ShaderLineOrigin(file: path, line: number))
                continue
            }
            guard let directive, directive.name == "include" else {
                body.lines.append(line)
                body.origins.append(ShaderLineOrigin(file: path, line: number))
                continue
            }
            let name = try Self.includeName(directive.argument, at: "\(path):\(number)")
            let file = try resolve(name, from: path, at: "\(path):\(number)")
            if let start = chain.firstIndex(where: { Self.same($0, file) }) {
                let cycle = (chain[start...] + [file]).map { ($0 as NSString).lastPathComponent }.joined(separator: " -> ")
                throw FilterError("\(path):\(number): #include \"\(name)\" makes a cycle: \(cycle)")
            }
            guard chain.count < Self.maxDepth else { throw FilterError("\(path):\(number): includes nest deeper than \(Self.maxDepth) files") }
            guard body.files.count < Self.maxFiles else { throw FilterError("\(path):\(number): more than \(Self.maxFiles) included files") }
            includes += 1
            guard includes <= Self.maxIncludes else {
                throw FilterError("\(path):\(number): more than \(Self.maxIncludes) #includes followed; include each file once, behind an #ifndef guard")
            }
            if !body.files.contains(file) { body.files.append(file) }
            let text = try texts[file] ?? String(decoding: SmallFile.read(file), as: UTF8.self)
            texts[file] = text
            try append(text, path: file, chain: chain + [file], into: &body, texts: &texts, includes: &includes)
        }
    }

    private func resolve(_ name: String, from including: String, at place: String) throws -> String {
        let folder = (including as NSString).deletingLastPathComponent
        let candidates = name.hasPrefix("/") ? [name]
            : [(folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name))]
                + includePaths.map { ($0 as NSString).appendingPathComponent(name) }
        for candidate in candidates where FileManager.default.fileExists(atPath: candidate) {
            return (candidate as NSString).standardizingPath
        }
        let searched = ([folder.isEmpty ? "." : folder] + includePaths).joined(separator: ", ")
        throw FilterError("\(place): #include \"\(name)\": no such file in \(searched) (add a folder with -I DIR)")
    }

    private static func same(_ a: String, _ b: String) -> Bool {
        (a as NSString).standardizingPath == (b as NSString).standardizingPath
    }

    /// `#name argument` on a line, or nil.
    static func directive(_ line: String) -> (name: String, argument: String)? {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        guard trimmed.first == "#" else { return nil }
        let rest = trimmed.dropFirst().drop { $0 == " " || $0 == "\t" }
        let name = rest.prefix { $0.isLetter }
        let argument = rest.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
        return (String(name), argument)
    }

    private static func includeName(_ argument: String, at place: String) throws -> String {
        let text = argument.components(separatedBy: "//")[0].trimmingCharacters(in: .whitespaces)
        guard text.count >= 3, let first = text.first, let last = text.last,
              (first == "\"" && last == "\"") || (first == "<" && last == ">") else {
            throw FilterError("\(place): #include needs a file name in quotes, e.g. #include \"noise.glsl\"")
        }
        return String(text.dropFirst().dropLast())
    }
}
