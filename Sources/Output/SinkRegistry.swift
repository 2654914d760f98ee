/// Every kind of output `-o` names, in the order their forms are tried.
public enum SinkRegistry {
    public static let kinds: [SinkKind.Type] = [
        PNGSink.self,
        JPEGSink.self,
        Y4MSink.self,
        VideoRecording.self,
        DisplaySink.self,
        ServeSink.self,
        PublishSink.self,
        VirtualCameraSink.self,
    ]
}
