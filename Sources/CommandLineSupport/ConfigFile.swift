import ArgumentParser
import Foundation
import Lifecycle
import Pixels

/// A run's options read from a JSON file (`--config kiosk.json`), as a
/// systemd unit or a streaming set-up keeps them: one object whose keys are
/// the command's long options without their dashes, each value a string, a
/// number, true (a flag given) or false (not given), or an array for an
/// option that repeats. The file's options go before the command line's,
/// and an option the command line gives replaces the file's, repeated ones
/// included. An unknown key, a value of the wrong shape or a file that is not
/// such an object is refused in one line naming what works.
public enum ConfigFile {
    /// The largest file read: options, not data.
    public static let largest = 1 << 20

    /// `arguments` (without the program's name) with the file of `--config`
    /// expanded in front of them, for `root`'s subcommand named first (or its
    /// default); unchanged when no `--config` is given.
    public static func expand(_ arguments: [String], root: ParsableCommand.Type) throws -> [String] {
        guard let path = configPath(in: arguments) else { return arguments }
        let subcommands = root.configuration.subcommands
        let named = arguments.first.flatMap { first in subcommands.first { $0._commandName == first } }
        guard let command = named ?? root.configuration.defaultSubcommand ?? (subcommands.isEmpty ? root : nil) else { return arguments }
        let options = try Self.options(of: command)
        let values = try read(path)
        var added: [String] = []
        for key in values.keys.sorted() {
            guard let option = options.first(where: { $0.long == key }), key != "config" else {
                let valid = options.map(\.long).filter { $0 != "config" && $0 != "help" && $0 != "version" }.sorted()
                throw ConfigError("\(excerpt(path)): no option '\(excerpt(key))' for kamera \(command._commandName); valid keys: \(valid.joined(separator: ", "))")
            }
            // The command line's own value wins.
            if option.names.contains(where: { name in arguments.contains { $0 == name || $0.hasPrefix(name + "=") } }) { continue }
            added += try Self.arguments(for: option, value: values[key]!, in: path)
        }
        let insertAt = named == nil ? 0 : 1
        return Array(arguments[..<insertAt]) + added + arguments[insertAt...]
    }

    /// The path after `--config`, or nil.
    static func configPath(in arguments: [String]) -> String? {
        for (i, argument) in arguments.enumerated() {
            if argument == "--" { return nil }
            if argument == "--config" { return i + 1 < arguments.count ? arguments[i + 1] : nil }
            if argument.hasPrefix("--config=") { return String(argument.dropFirst("--config=".count)) }
        }
        return nil
    }

    /// One option of a command, as its help describes it.
    struct Option {
        var long: String
        var names: [String]
        var isFlag: Bool
        var repeats: Bool
    }

    /// The options and flags `command` takes, from its help's JSON.
    static func options(of command: ParsableCommand.Type) throws -> [Option] {
        let dump = Data(command._dumpHelp().utf8)
        guard let tool = try JSONSerialization.jsonObject(with: dump) as? [String: Any],
              let info = tool["command"] as? [String: Any], let arguments = info["arguments"] as? [[String: Any]] else {
            throw ConfigError("kamera \(command._commandName): its options could not be listed")
        }
        return arguments.compactMap { argument in
            let kind = argument["kind"] as? String
            guard kind == "option" || kind == "flag", let names = argument["names"] as? [[String: String]],
                  let long = names.first(where: { $0["kind"] == "long" })?["name"] else { return nil }
            let all = names.compactMap { name in name["name"].map { name["kind"] == "short" ? "-" + $0 : "--" + $0 } }
            return Option(long: long, names: all, isFlag: kind == "flag", repeats: argument["isRepeating"] as? Bool ?? false)
        }
    }

    /// The JSON object in `path`, read whole after its size is checked.
    static func read(_ path: String) throws -> [String: Any] {
        if path.isEmpty { throw ConfigError("--config is empty; give a JSON file such as kiosk.json") }
        let data: Data
        switch BoundedFile.read(path, limit: largest) {
        case .success(let bytes): data = Data(bytes)
        case .failure(.unopened(let code)), .failure(.unreadable(let code)):
            throw ConfigError("\(excerpt(path)): cannot read the configuration: \(String(cString: strerror(code)))")
        case .failure(.notRegular):
            throw ConfigError("\(excerpt(path)): the configuration must be a regular JSON file")
        case .failure(.tooLarge(let bytes)):
            throw ConfigError("\(excerpt(path)): \(bytes) bytes is too large for a configuration; at most \(largest) bytes of JSON options")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data), let values = object as? [String: Any] else {
            throw ConfigError("\(excerpt(path)): not a JSON object of options; write {\"filter\": \"sepia\", \"quiet\": true}")
        }
        return values
    }

    /// The command-line words for one key's value.
    static func arguments(for option: Option, value: Any, in path: String) throws -> [String] {
        let name = "--" + option.long
        if option.isFlag {
            guard isBoolean(value), let on = value as? Bool else {
                throw ConfigError("\(excerpt(path)): \(option.long) is a flag; give true or false")
            }
            return on ? [name] : []
        }
        if let list = value as? [Any] {
            guard option.repeats else { throw ConfigError("\(excerpt(path)): \(option.long) takes one value, not a list") }
            return try list.flatMap { [name, try text(of: $0, option: option, in: path)] }
        }
        return [name, try text(of: value, option: option, in: path)]
    }

    /// JSON's true and false, told from the numbers 1 and 0 by their type.
    private static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c"
    }

    /// A value as the command line would give it.
    private static func text(of value: Any, option: Option, in path: String) throws -> String {
        if let string = value as? String { return string }
        if let number = value as? NSNumber, !isBoolean(value) {
            let double = number.doubleValue
            if double == double.rounded() && abs(double) < 1e15 { return String(Int64(double)) }
            return String(double)
        }
        throw ConfigError("\(excerpt(path)): \(option.long) takes \(option.repeats ? "a string or a number, or a list of them" : "a string or a number")")
    }
}

/// A configuration file that cannot be used, with a message meant for the user.
public struct ConfigError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
