import Foundation
import XCTest

/// `kamera bench --display-only` in the VM, on vkms: kmscube beside Kamera's
/// cube and preview. A step of the loopback boot, the shorter of the two.
final class DisplayBenchVMTests: XCTestCase {
    static let steps = [DisplayVMTests.step("bench", """
        $K bench --display-only --display-frames 2,6 --display-rounds 1 > bench.txt 2>&1; echo "exit $?" >> bench.txt
        """, owner: "\(DisplayBenchVMTests.self)")]

    /// The display bench measures kmscube (with the modifier shim it builds),
    /// the cube and the sepia preview, each as whole processes. Tiny counts: a
    /// debug build under TCG is slow; the figures are `kamera bench`'s to report.
    func testDisplayBenchMeasuresKamerasCubeBesideKmscube() throws {
        let run = VMBoot.loopback.run("display-bench")
        defer { run.remove() }
        let out = (try? run.text("bench.txt")) ?? ""
        _ = try run.checkedFolder()
        print(out)
        XCTAssertTrue(out.contains("exit 0"), out)
        XCTAssertTrue(out.contains("Display (vkms /dev/dri/card0, Virtual-1 1024x768@60)"), out)
        XCTAssertTrue(out.contains("LD_PRELOAD shim, built by this bench, whose gbm_bo_get_modifier returns 0"), out)
        XCTAssertTrue(out.contains("kamera cube beside kmscube's textured cube (rgba): "), out)
        for name in ["kmscube (legacy, smooth)", "kmscube (legacy, rgba)", "kamera cube -o kms", "kamera cube -o kms --format rgba",
                     "kamera preview -o kms --filter sepia"] {
            let row = out.split(separator: "\n").first { $0.hasPrefix(name) }.map(String.init) ?? ""
            let numbers = row.dropFirst(name.count).split(separator: " ").compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: "x"))) }
            XCTAssertEqual(numbers.count, name == "kmscube (legacy, smooth)" ? 2 : 4, "\(name): \(row)\n\(out)")
            XCTAssertTrue(numbers.allSatisfy { $0 > 0 }, "\(name): \(row)")
        }
    }
}
