/// A check a user's shader must pass before it is compiled in this process:
/// the command line sets it to a compile in a short-lived child process with
/// a memory and a time limit (`CompileSandbox`), so that a shader whose
/// compile would take the machine (nested macros, huge arrays) is refused
/// instead. Nil (programs using Kamera as a library, tests) compiles directly.
public enum ShaderCompileGuard {
    /// Throws when `fragment` (with `vertex`) must not be compiled here; `name` is the file, for the message.
    nonisolated(unsafe) public static var check: ((_ vertex: String, _ fragment: String, _ name: String) throws -> Void)?
}
