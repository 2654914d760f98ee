import Capture
import Foundation
import Render
import XCTest

/// Several sources composed into one picture (`--layout`): the places of
/// each layout, then whole runs whose cells are checked pixel by pixel
/// against each source rendered alone (within 1 of 255: the same picture,
/// drawn once more at its own size), and what is refused.
final class CompositionTests: KameraProcessTestCase {
    func testEachLayoutPlacesThePictures() {
        let squares = [(width: 100, height: 100), (100, 100), (100, 100)]
        XCTAssertTrue(CompositionLayout.side.outputSize(first: (100, 100), count: 3) == (300, 100))
        XCTAssertEqual(CompositionLayout.side.rectangles(for: squares, width: 300, height: 100),
                       [PixelBox(x: 0, y: 0, width: 100, height: 100), PixelBox(x: 100, y: 0, width: 100, height: 100), PixelBox(x: 200, y: 0, width: 100, height: 100)])
        XCTAssertTrue(CompositionLayout.grid.outputSize(first: (100, 100), count: 3) == (200, 200), "3 in a grid of 2x2")
        XCTAssertEqual(CompositionLayout.grid.rectangles(for: squares, width: 200, height: 200)[2], PixelBox(x: 0, y: 100, width: 100, height: 100))
        // A wider picture fits its cell whole, centered, bars above and below.
        XCTAssertEqual(CompositionLayout.side.rectangles(for: [(100, 100), (200, 100)], width: 200, height: 100)[1], PixelBox(x: 100, y: 25, width: 100, height: 50))
        // Picture in picture: 25% of 720 is 180 wide, 2% (14 pixels) from the edges, the next stacked inward.
        let pip = CompositionLayout.pip(corner: .bottomRight, size: 0.25)
        XCTAssertEqual(pip.rectangles(for: [(720, 720), (100, 100), (200, 100)], width: 720, height: 720),
                       [PixelBox(x: 0, y: 0, width: 720, height: 720), PixelBox(x: 526, y: 526, width: 180, height: 180), PixelBox(x: 526, y: 422, width: 180, height: 90)])
        XCTAssertEqual(CompositionLayout.pip(corner: .topLeft, size: 0.25).rectangles(for: [(720, 720), (100, 100)], width: 720, height: 720)[1],
                       PixelBox(x: 14, y: 14, width: 180, height: 180))
    }

    /// RGBA pixels of a PNG the run wrote.
    func picture(_ name: String) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let frame = try XCTUnwrap(try ImageSource(path: run.path(name)).nextFrame())
        XCTAssertEqual(frame.planes[0].bytesPerRow, frame.width * 4)
        return (frame.width, frame.height, Array(frame.planes[0].bytes))
    }

    /// The largest difference between `composed`'s `box` and `part` (its
    /// whole picture), or `part` nil: black.
    func difference(_ composed: (width: Int, height: Int, pixels: [UInt8]), _ box: PixelBox, _ part: (width: Int, height: Int, pixels: [UInt8])?) -> Int {
        var worst = 0
        for y in 0..<box.height {
            for x in 0..<box.width {
                let i = ((box.y + y) * composed.width + box.x + x) * 4
                for c in 0..<4 {
                    let want = part.map { Int($0.pixels[(y * $0.width + x) * 4 + c]) } ?? (c == 3 ? 255 : 0)
                    worst = max(worst, abs(Int(composed.pixels[i + c]) - want))
                }
            }
        }
        return worst
    }

    /// The test pattern, the test pattern through invert (a filter after a
    /// source is that source's), and a sepia still, in a 2x2 grid: each
    /// cell equals that source rendered alone, the fourth is black.
    func testAGridShowsEachSourceWithItsOwnFilters() throws {
        for arguments in [["-o", "plain.png"], ["--filter", "invert", "-o", "invert.png"], ["--filter", "sepia", "-o", "sepia.png"],
                          ["--input", "pattern:", "--input", "pattern:", "--filter", "invert", "--input", "sepia.png", "--layout", "grid", "-o", "grid.png"]] {
            let result = try run.run(["render", "--frames", "1"] + arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
        }
        let grid = try picture("grid.png"), plain = try picture("plain.png")
        XCTAssertEqual(plain.width, 720)
        XCTAssertEqual(grid.width, 1440)
        XCTAssertEqual(grid.height, 1440)
        let cells = [("the test pattern", try picture("plain.png")), ("the test pattern inverted", try picture("invert.png")), ("the sepia still", try picture("sepia.png"))]
        for (i, (name, part)) in cells.enumerated() {
            XCTAssertLessThanOrEqual(difference(grid, PixelBox(x: 720 * (i % 2), y: 720 * (i / 2), width: 720, height: 720), part), 1, name)
        }
        XCTAssertEqual(difference(grid, PixelBox(x: 720, y: 720, width: 720, height: 720), nil), 0, "the empty cell is black")
    }

    /// `--layout pip --pip-corner top-left --pip-size 25%`: a 180x180 still
    /// 14 pixels from the top left corner of the 720x720 test pattern, which
    /// is left as it is everywhere else.
    func testPictureInPictureSitsWhereAsked() throws {
        for arguments in [["-o", "plain.png"], ["--size", "180x180", "--filter", "invert", "-o", "small.png"],
                          ["--input", "pattern:", "--input", "small.png", "--layout", "pip", "--pip-corner", "top-left", "--pip-size", "25%", "-o", "pip.png"]] {
            let result = try run.run(["render", "--frames", "1"] + arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
        }
        let pip = try picture("pip.png"), plain = try picture("plain.png"), small = try picture("small.png")
        XCTAssertEqual(pip.width, 720)
        XCTAssertEqual(pip.height, 720)
        XCTAssertLessThanOrEqual(difference(pip, PixelBox(x: 14, y: 14, width: 180, height: 180), small), 1, "the small picture")
        var changed = 0
        for y in 0..<720 {
            for x in 0..<720 where !(14..<194).contains(x) || !(14..<194).contains(y) {
                let i = (y * 720 + x) * 4
                if (0..<4).contains(where: { abs(Int(pip.pixels[i + $0]) - Int(plain.pixels[i + $0])) > 1 }) { changed += 1 }
            }
        }
        XCTAssertEqual(changed, 0, "outside the small picture: the test pattern")
        // --size gives the composed picture's size.
        let sized = try run.run(["render", "--frames", "1", "--input", "pattern:", "--input", "small.png", "--size", "640x360", "-o", "sized.png"])
        XCTAssertEqual(sized.status, 0, sized.stderr)
        let picture = try self.picture("sized.png")
        XCTAssertTrue((picture.width, picture.height) == (640, 360))
    }

    func testWhatIsRefusedIsOneLine() throws {
        let two = ["render", "--input", "pattern:", "--input", "pattern:"]
        try run.assertFails(two + ["--layout", "diagonal"], mentioning: ["--layout diagonal is not valid; use side, grid or pip"])
        try run.assertFails(two + ["--layout", "pip", "--pip-size", "200%"], mentioning: ["--pip-size 200% is not valid", "from 5% to 90%"])
        try run.assertFails(two + ["--layout", "pip", "--pip-corner", "middle"], mentioning: ["--pip-corner middle is not valid", "top-left"])
        try run.assertFails(two + ["--pip-size", "20%"], mentioning: ["add --layout pip"])
        try run.assertFails(two + ["--cube"], mentioning: ["--cube draws one source"])
        try run.assertFails(two + ["--input", "pattern:", "--input", "pattern:", "--input", "pattern:"], mentioning: ["5 sources given", "at most 4"])
        try run.assertFails(["preview", "--camera", "/dev/video97", "--input", "pattern:", "--persistent"], mentioning: ["--persistent keeps one camera's run going"])
    }
}
