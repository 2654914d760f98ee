import ArgumentParser
import CGLES
import Foundation
import GPU
import Lifecycle

/// Compiles a user's shader first in a child process (`kamera __compile-check`)
/// that limits its own address space and CPU time, while this process waits
/// in steps a stop ends: a shader whose compile would take gigabytes or
/// minutes (nested macros expanded by the preprocessor, a huge array) is
/// refused in one line, and only one that compiled there is compiled here.
/// A source that passed once is not checked again (a `--watch` save of the same text).
enum CompileSandbox {
    /// Address space the child may map: EGL, llvmpipe and the render thread's
    /// reserved stack take about 0.8 GiB; an ordinary compile a few MiB more.
    static let memoryLimit = 3 << 30
    /// Seconds the child may take; ordinary shaders compile in well under one.
    static let timeLimit = 20.0

    nonisolated(unsafe) private static var passed = Set<Int>()
    nonisolated(unsafe) private static var gles = "auto"
    nonisolated(unsafe) private static var gpu = "auto"

    /// Makes every user shader of this run go through the child first.
    static func install(gpu: String, gles: String) {
        (self.gpu, self.gles) = (gpu, gles)
        ShaderCompileGuard.check = check
    }

    private static func tooSlow(_ name: String) -> GPUError {
        GPUError("\(name): the shader compiler took more than \(Int(timeLimit)) s; Kamera refuses shaders that take longer to compile (a huge array or deeply nested macros?)")
    }

    static func check(vertex: String, fragment: String, name: String) throws {
        var hasher = Hasher()
        hasher.combine(vertex)
        hasher.combine(fragment)
        let key = hasher.finalize()
        guard !passed.contains(key) else { return }
        // The child reads it all before compiling.
        let payload = Array("\(vertex.utf8.count)\n".utf8) + Array(vertex.utf8) + Array(fragment.utf8)
        let child = ChildProcess(executable: "/proc/self/exe",
                                 arguments: ["__compile-check", "--gpu", gpu, "--gles", gles, "--memory", String(memoryLimit), "--seconds", String(Int(timeLimit))],
                                 input: .bytes(payload), keepsOutput: false, timeLimit: timeLimit + 5, onStop: .kill)
        let result: ChildProcess.Result
        do {
            result = try child.run()
        } catch is StopRequested {
            throw GPUError("\(name): stopped while the shader compiled")
        }
        if result.timedOut { throw tooSlow(name) }
        switch (result.signal, result.status) {
        case (nil, 0), (nil, 1):
            // 1: a compile error, which the compile here reports with its lines.
            passed.insert(key)
        case (nil, 3):
            throw tooSlow(name)
        case (nil, 4):
            // The child could not start a GPU context: nothing learnt; the compile here reports any problem.
            passed.insert(key)
        default:
            throw GPUError("\(name): the shader compiler needed more than \(memoryLimit >> 30) GiB (or crashed); Kamera refuses shaders that take more to compile (macros nested so deep that they expand without end, or a huge array?)")
        }
    }
}

/// `kamera __compile-check`: the child of `CompileSandbox`, not for users.
/// Reads `VERTEX_BYTES\n` + vertex + fragment on stdin, limits itself and
/// compiles. Exit 0: compiled; 1: a compile error; 3: out of time; 4: no GPU
/// context; killed by a signal: out of memory (or the compiler crashed).
struct CompileCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "__compile-check", shouldDisplay: false)

    @Option var gpu = "auto"
    @Option var gles = "auto"
    @Option var memory: Int
    @Option var seconds: Int

    func run() throws {
        var cpu = rlimit(rlim_cur: rlim_t(seconds), rlim_max: rlim_t(seconds + 1))
        setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &cpu)
        alarm(UInt32(seconds))
        signal(SIGALRM) { _ in _exit(3) }
        signal(SIGXCPU) { _ in _exit(3) }
        StopSignal.disableCoreDumps()
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard let newline = data.firstIndex(of: 0x0A), let count = Int(String(decoding: data[..<newline], as: UTF8.self)),
              count >= 0, newline + 1 + count <= data.count else { Foundation.exit(4) }
        let vertex = String(decoding: data[(newline + 1)..<(newline + 1 + count)], as: UTF8.self)
        let fragment = String(decoding: data[(newline + 1 + count)...], as: UTF8.self)
        let thread = RenderThread()
        let status: Int32 = (try? thread.sync { () -> Int32 in
            guard let platform = GPUPlatform(argument: gpu), let version = GLESVersion(rawValue: gles),
                  let context = try? GPUContext(platform: platform, version: version) else { return 4 }
            // The limit goes on once the context is up. Not under a sanitizer, whose
            // shadow memory maps terabytes of address space and would fail at once.
            if dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") == nil && dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") == nil {
                var space = rlimit(rlim_cur: rlim_t(memory), rlim_max: rlim_t(memory))
                setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &space)
            }
            defer { _ = context }
            guard let program = try? ShaderProgram(vertex: vertex, fragment: fragment) else { return 1 }
            // Software renderers (llvmpipe) compile the shader to machine code at its
            // first draw, not at link: one pixel is drawn so that compile is bounded too.
            guard let target = try? Framebuffer(width: 1, height: 1) else { return 4 }
            target.bind()
            program.use()
            Quad().draw(Quad.vertices(filling: .full))
            glFinish()
            return 0
        }) ?? 4
        // No teardown: the child's answer is its status.
        _exit(status)
    }
}
