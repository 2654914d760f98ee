/// What a library error says, as facts a front end can use: what it is
/// about (a setting, and the value it was given), what is wrong, and what
/// would work. `description` puts them in Kamera's one line:
/// "the JPEG quality 120 is out of range; use 1 to 100 (default 92)", or,
/// with the command line's names installed (`Setting.names`),
/// "--quality 120 is out of range; use 1 to 100 (default 92)".
public struct Facts: Sendable, CustomStringConvertible {
    /// How the problem follows the setting and value.
    public enum Form: Sendable {
        /// A predicate of them: "the JPEG quality 120 is out of range".
        case predicate
        /// A statement about them after a colon: "the connector HDMI-A-9: nothing is connected to it".
        case statement
    }

    /// The setting the error is about; nil for one that is about no setting (a file, a device).
    public var setting: Setting?
    /// The value the setting was given, as given (or as much of it as is shown).
    public var value: String?
    /// What is wrong; the whole message when there is no setting.
    public var problem: String
    /// What would work, when there is something to say.
    public var remedy: String?
    public var form: Form

    public init(setting: Setting? = nil, value: String? = nil, problem: String, remedy: String? = nil, form: Form = .predicate) {
        (self.setting, self.value, self.problem, self.remedy, self.form) = (setting, value, problem, remedy, form)
    }

    public var description: String {
        var line = ""
        if let setting {
            line = "\(setting)" + (value.map { " \($0)" } ?? "") + (form == .predicate ? " " : ": ")
        }
        line += problem
        if let remedy { line += "; \(remedy)" }
        return line
    }
}
