import ArgumentParser

/// `--config FILE`: the run's options from a JSON file (`ConfigFile`).
public struct ConfigOption: ParsableArguments {
    public init() {}

    @Option(parsing: .unconditional,
            help: "Read options from a JSON object whose keys are the long options without dashes: {\"camera\": \"/dev/video0\", \"output\": [\"kms\"], \"filter\": \"sepia\", \"quiet\": true}. Options on the command line override the file's.",
            completion: .file(extensions: ["json"]))
    public var config: String?
}
