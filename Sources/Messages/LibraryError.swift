/// The shape of each layer's error (`CaptureError`, `OutputError`, ...): one
/// type per module, so that a caller can tell where a failure came from,
/// carrying `Facts` rather than a finished sentence. Messages about a setting
/// name it through `Setting`, never by a front end's option.
public protocol LibraryError: Error, CustomStringConvertible, Sendable {
    var facts: Facts { get }
    init(facts: Facts)
}

extension LibraryError {
    /// An error whose whole message is `message` (one about no setting).
    public init(_ message: String) { self.init(facts: Facts(problem: message)) }

    /// An error about `setting` given `value`, as a predicate:
    /// `OutputError(.quality, "120", is: "out of range", "use 1 to 100")`
    /// says "the JPEG quality 120 is out of range; use 1 to 100".
    public init(_ setting: Setting, _ value: String? = nil, is problem: String, _ remedy: String? = nil) {
        self.init(facts: Facts(setting: setting, value: value, problem: "is " + problem, remedy: remedy))
    }

    /// An error about `setting` given `value`, with any predicate:
    /// "the audio records into a video file; add an output clip.mp4".
    public init(_ setting: Setting, _ value: String? = nil, does problem: String, _ remedy: String? = nil) {
        self.init(facts: Facts(setting: setting, value: value, problem: problem, remedy: remedy))
    }

    /// An error about `setting` given `value`, with a statement after a colon:
    /// "the connector HDMI-A-9: nothing is connected to it; connected ones: Virtual-1".
    public init(_ setting: Setting, _ value: String? = nil, because problem: String, _ remedy: String? = nil) {
        self.init(facts: Facts(setting: setting, value: value, problem: problem, remedy: remedy, form: .statement))
    }

    public var description: String { facts.description }
}
