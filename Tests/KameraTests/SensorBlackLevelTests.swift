import Capture
import Glibc
import XCTest

/// The black level a raw camera gets when none is given: its sensor's, found by
/// walking the camera's media graph from the video node upstream, and the
/// datasheet table scaled to the format's bits. The graphs here are written as
/// `media-ctl -p` prints those of boards (a sensor straight into a receiver's
/// video node, or through a CSI-2 bridge); vivid's real graph, which has no
/// sensor, is read in `BayerVMTests`.
final class SensorBlackLevelTests: XCTestCase {
    let node = MediaGraph.deviceNumber(major: 81, minor: 0)

    /// imx219 → unicam-image (/dev/video0), and unicam-embedded on its own node.
    func unicam(linkEnabled: Bool = true, sensorName: String = "imx219 10-0010") -> MediaGraph {
        MediaGraph(path: "/dev/media3", model: "unicam",
                   entities: [.init(id: 1, name: sensorName, isSensor: true), .init(id: 4, name: "unicam-image", isSensor: false),
                              .init(id: 7, name: "unicam-embedded", isSensor: false)],
                   videoNodes: [node: 4, MediaGraph.deviceNumber(major: 81, minor: 1): 7],
                   links: [.init(from: 1, to: 4, enabled: linkEnabled)])
    }

    func testTheModelIsTheEntityNameBeforeItsAddress() {
        XCTAssertEqual(SensorBlackLevel.model(ofEntity: "imx219 10-0010"), "imx219")
        XCTAssertEqual(SensorBlackLevel.model(ofEntity: "OV5647 10-0036"), "ov5647")
        XCTAssertEqual(SensorBlackLevel.model(ofEntity: "imx708"), "imx708")
        XCTAssertEqual(SensorBlackLevel.model(ofEntity: ""), "")
    }

    func testDatasheetLevelsScaleToTheFormatsBits() {
        XCTAssertEqual(SensorBlackLevel.level(model: "imx219", bits: 10), 64)
        XCTAssertEqual(SensorBlackLevel.level(model: "imx219", bits: 8), 16)
        XCTAssertEqual(SensorBlackLevel.level(model: "imx219", bits: 12), 256)
        XCTAssertEqual(SensorBlackLevel.level(model: "imx219", bits: 16), 4096)
        XCTAssertEqual(SensorBlackLevel.level(model: "ov5647", bits: 10), 16)
        XCTAssertEqual(SensorBlackLevel.level(model: "ar0144", bits: 12), 168)
        XCTAssertEqual(SensorBlackLevel.level(model: "imx290", bits: 12), 240)
        XCTAssertEqual(SensorBlackLevel.level(model: "imx283", bits: 10), 50)
        XCTAssertNil(SensorBlackLevel.level(model: "vivid", bits: 10))
    }

    func testTheSensorFeedingTheNodeIsFound() {
        XCTAssertEqual(unicam().sensors(feeding: dev_t(node))?.map(\.name), ["imx219 10-0010"])
        // Not set up yet (the link off): still the sensor wired to it.
        XCTAssertEqual(unicam(linkEnabled: false).sensors(feeding: dev_t(node))?.map(\.name), ["imx219 10-0010"])
        // The embedded-data node has no sensor upstream; a node not in the graph gives nil.
        XCTAssertEqual(unicam().sensors(feeding: dev_t(MediaGraph.deviceNumber(major: 81, minor: 1))), [])
        XCTAssertNil(unicam().sensors(feeding: dev_t(MediaGraph.deviceNumber(major: 81, minor: 9))))
    }

    func testThroughABridgeTheEnabledSensorComesFirst() {
        // Two sensors into one CSI-2 receiver (2), then a video node (3); only ov5640's link is on.
        let graph = MediaGraph(path: "/dev/media0", model: "rkisp1",
                               entities: [.init(id: 10, name: "imx219 4-0010", isSensor: true), .init(id: 11, name: "ov5640 3-003c", isSensor: true),
                                          .init(id: 2, name: "csi", isSensor: false), .init(id: 3, name: "capture", isSensor: false)],
                               videoNodes: [node: 3],
                               links: [.init(from: 10, to: 2, enabled: false), .init(from: 11, to: 2, enabled: true), .init(from: 2, to: 3, enabled: true)])
        XCTAssertEqual(graph.sensors(feeding: dev_t(node))?.map(\.name), ["ov5640 3-003c"])
        let levels = SensorBlackLevel.of(camera: "/dev/video0", bits: [8, 10], in: (graph, dev_t(node)))
        XCTAssertEqual(levels.map(\.level), [4, 16])
        XCTAssertEqual(levels[1].reason, "black level 16 at 10 bits: the ov5640 sensor's (\"ov5640 3-003c\" in /dev/media0)")
        // Neither linked: no guess between two models.
        var unlinked = graph
        unlinked.links[1].enabled = false
        XCTAssertEqual(unlinked.sensors(feeding: dev_t(node))?.count, 2)
        let unsure = SensorBlackLevel.of(camera: "/dev/video0", bits: [10], in: (unlinked, dev_t(node)))[0]
        XCTAssertEqual(unsure.reason, "black level 0 at 10 bits: 2 sensors can feed /dev/video0 in /dev/media0 (\"imx219 4-0010\", \"ov5640 3-003c\") and none is linked to it; the black level N sets one")
    }

    func testUnknownOrMissingSensorsGiveZeroAndSayWhy() {
        let known = SensorBlackLevel.of(camera: "/dev/video0", bits: [10], in: (unicam(), dev_t(node)))[0]
        XCTAssertEqual(known.level, 64)
        let unknown = SensorBlackLevel.of(camera: "/dev/video0", bits: [10], in: (unicam(sensorName: "Camera 1"), dev_t(node)))[0]
        XCTAssertEqual(unknown.level, 0)
        XCTAssertEqual(unknown.reason, "black level 0 at 10 bits: sensor \"Camera 1\" in /dev/media3 is not one whose black level Kamera knows; the black level N sets one")
        let none = SensorBlackLevel.of(camera: "/dev/video5", bits: [8], in: nil)[0]
        XCTAssertEqual(none.reason, "black level 0 at 8 bits: /dev/video5 has no media controller graph to name its sensor; the black level N sets one")
        // On this machine (no cameras), a path that is no device has no graph.
        XCTAssertEqual(SensorBlackLevel.of(camera: "/dev/null", bits: 8).level, 0)
    }
}
