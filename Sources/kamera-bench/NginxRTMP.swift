import Foundation
import Glibc

/// nginx with Debian's RTMP module (`libnginx-mod-rtmp`) on loopback ports
/// of its own, started in a folder (the publish bench's, a test's): RTMP in at
/// `rtmp://127.0.0.1:PORT/live/NAME`, HLS out at `http://127.0.0.1:HTTP/hls/NAME.m3u8`.
final class NginxRTMP {
    static let module = "/usr/lib/nginx/modules/ngx_rtmp_module.so"
    let folder: URL
    let rtmpPort: Int
    let httpPort: Int
    private var process: Process?

    init(in folder: URL) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx"), FileManager.default.fileExists(atPath: Self.module) else {
            throw BenchError("nginx with its RTMP module is not installed: scripts/install-deps.sh --tests installs nginx and libnginx-mod-rtmp")
        }
        self.folder = folder.appendingPathComponent("nginx")
        rtmpPort = try StreamBenchmark.freePort()
        httpPort = try StreamBenchmark.freePort()
        let root = self.folder.path
        for name in ["", "tmp", "hls"] { try FileManager.default.createDirectory(atPath: root + "/" + name, withIntermediateDirectories: true) }
        try """
            load_module \(Self.module);
            daemon off;
            master_process off;
            pid \(root)/nginx.pid;
            error_log \(root)/error.log;
            events {}
            rtmp {
                server {
                    listen 127.0.0.1:\(rtmpPort);
                    application live { live on; hls on; hls_path \(root)/hls; hls_fragment 1s; hls_playlist_length 6s; }
                }
            }
            http {
                access_log off;
                client_body_temp_path \(root)/tmp; proxy_temp_path \(root)/tmp; fastcgi_temp_path \(root)/tmp; uwsgi_temp_path \(root)/tmp; scgi_temp_path \(root)/tmp;
                server {
                    listen 127.0.0.1:\(httpPort);
                    location /hls { root \(root); types { application/vnd.apple.mpegurl m3u8; video/mp2t ts; } add_header Cache-Control no-cache; }
                }
            }
            """.write(toFile: root + "/nginx.conf", atomically: true, encoding: .utf8)
    }

    func rtmp(_ name: String) -> String { "rtmp://127.0.0.1:\(rtmpPort)/live/\(name)" }
    func hls(_ name: String) -> String { "http://127.0.0.1:\(httpPort)/hls/\(name).m3u8" }

    /// Starts nginx and waits until its RTMP port takes connections.
    func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-c", folder.path + "/nginx.conf", "-p", folder.path, "-e", folder.path + "/error.log"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if !process.isRunning {
                throw BenchError("nginx ended: \((try? String(contentsOfFile: folder.path + "/error.log", encoding: .utf8)) ?? "")")
            }
            if StreamBenchmark.accepts(port: rtmpPort) { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw BenchError("nginx did not listen on \(rtmpPort) in 20 s")
    }

    /// Stops nginx (SIGTERM; SIGKILL after 10 s) and waits for it.
    func stop() {
        guard let process else { return }
        self.process = nil
        process.terminate()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}
