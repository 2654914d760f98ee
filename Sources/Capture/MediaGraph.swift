import CV4L2
import Foundation
import Glibc

/// A media controller device's graph (`/dev/mediaN`, `MEDIA_IOC_G_TOPOLOGY`),
/// as `media-ctl -p` prints it: the entities (a sensor, a CSI-2 receiver, the
/// video node), the interfaces (device nodes) and the data links between
/// entities' pads. Kamera reads it to name the sensor behind a camera node.
public struct MediaGraph: Equatable, Sendable {
    public struct Entity: Equatable, Sendable {
        public var id: UInt32
        public var name: String
        public var isSensor: Bool
        public init(id: UInt32, name: String, isSensor: Bool) { (self.id, self.name, self.isSensor) = (id, name, isSensor) }
    }

    /// A data link, from the entity whose source pad it leaves to the one whose sink pad it enters.
    public struct Link: Equatable, Sendable {
        public var from: UInt32
        public var to: UInt32
        public var enabled: Bool
        public init(from: UInt32, to: UInt32, enabled: Bool) { (self.from, self.to, self.enabled) = (from, to, enabled) }
    }

    /// The media device's path and its model (the driver's name for it, e.g. "vivid", "unicam").
    public var path: String
    public var model: String
    public var entities: [Entity]
    /// The entity behind each video device node, by the node's device number (major, minor).
    public var videoNodes: [UInt64: UInt32]
    public var links: [Link]

    public init(path: String, model: String, entities: [Entity], videoNodes: [UInt64: UInt32], links: [Link]) {
        (self.path, self.model, self.entities, self.videoNodes, self.links) = (path, model, entities, videoNodes, links)
    }

    /// The sensors that feed the video node numbered `device`: those upstream of
    /// its entity along enabled links, else along any links (a pipeline not set
    /// up yet), nearest first.
    public func sensors(feeding device: dev_t) -> [Entity]? {
        guard let start = videoNodes[UInt64(device)] else { return nil }
        for enabledOnly in [true, false] {
            var seen: Set<UInt32> = [start], queue = [start], found: [Entity] = []
            while !queue.isEmpty {
                let id = queue.removeFirst()
                if let entity = entities.first(where: { $0.id == id }), entity.isSensor { found.append(entity) }
                for link in links where link.to == id && (link.enabled || !enabledOnly) && seen.insert(link.from).inserted {
                    queue.append(link.from)
                }
            }
            if !found.isEmpty { return found }
        }
        return []
    }

    /// Every graph's limit on each kind of object, checked before allocating (a
    /// board's graph has tens; vivid's, 8 entities).
    static let maximumObjects = 4096

    /// Reads the graph of the media device at `path`.
    public init(path: String) throws {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw CaptureError("\(path): cannot open: \(V4L2.message(errno))") }
        defer { close(fd) }
        var info = media_device_info()
        guard V4L2.ioctl(fd, KAMERA_MEDIA_IOC_DEVICE_INFO, &info) == 0 else { throw CaptureError("\(path): not a media controller device") }
        model = withUnsafeBytes(of: info.model) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        self.path = path
        // Counts first, then the arrays; a graph that changes between the two calls is read again.
        for _ in 0..<4 {
            var counts = media_v2_topology()
            let e = V4L2.ioctl(fd, KAMERA_MEDIA_IOC_G_TOPOLOGY, &counts)
            guard e == 0 else { throw CaptureError("\(path): cannot read the media graph: \(V4L2.message(e))") }
            let limit = UInt32(Self.maximumObjects)
            guard counts.num_entities <= limit, counts.num_interfaces <= limit, counts.num_pads <= limit, counts.num_links <= limit else {
                throw CaptureError("\(path): the media graph has over \(limit) entities, interfaces, pads or links")
            }
            var entityList = [media_v2_entity](repeating: media_v2_entity(), count: Int(counts.num_entities))
            var interfaceList = [media_v2_interface](repeating: media_v2_interface(), count: Int(counts.num_interfaces))
            var padList = [media_v2_pad](repeating: media_v2_pad(), count: Int(counts.num_pads))
            var linkList = [media_v2_link](repeating: media_v2_link(), count: Int(counts.num_links))
            var topology = counts
            let read = entityList.withUnsafeMutableBytes { entitiesBytes in
                interfaceList.withUnsafeMutableBytes { interfacesBytes in
                    padList.withUnsafeMutableBytes { padsBytes in
                        linkList.withUnsafeMutableBytes { linksBytes in
                            topology.ptr_entities = UInt64(UInt(bitPattern: entitiesBytes.baseAddress))
                            topology.ptr_interfaces = UInt64(UInt(bitPattern: interfacesBytes.baseAddress))
                            topology.ptr_pads = UInt64(UInt(bitPattern: padsBytes.baseAddress))
                            topology.ptr_links = UInt64(UInt(bitPattern: linksBytes.baseAddress))
                            return V4L2.ioctl(fd, KAMERA_MEDIA_IOC_G_TOPOLOGY, &topology)
                        }
                    }
                }
            }
            // ENOSPC: objects were added since the counts were read.
            if read == ENOSPC { continue }
            guard read == 0 else { throw CaptureError("\(path): cannot read the media graph: \(V4L2.message(read))") }
            guard topology.topology_version == counts.topology_version else { continue }
            entities = entityList.map { e in
                Entity(id: e.id, name: withUnsafeBytes(of: e.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) },
                       isSensor: e.function == KAMERA_MEDIA_ENT_F_CAM_SENSOR)
            }
            let padEntity = Dictionary(padList.map { ($0.id, $0.entity_id) }, uniquingKeysWith: { a, _ in a })
            let nodes = Dictionary(interfaceList.filter { $0.intf_type == KAMERA_MEDIA_INTF_T_V4L_VIDEO }
                .map { ($0.id, Self.deviceNumber(major: $0.devnode.major, minor: $0.devnode.minor)) }, uniquingKeysWith: { a, _ in a })
            var videoNodes: [UInt64: UInt32] = [:], links: [Link] = []
            for l in linkList {
                switch l.flags & KAMERA_MEDIA_LNK_FL_LINK_TYPE {
                case KAMERA_MEDIA_LNK_FL_INTERFACE_LINK:
                    if let node = nodes[l.source_id] { videoNodes[node] = l.sink_id }
                case KAMERA_MEDIA_LNK_FL_DATA_LINK:
                    if let from = padEntity[l.source_id], let to = padEntity[l.sink_id] {
                        links.append(Link(from: from, to: to, enabled: l.flags & KAMERA_MEDIA_LNK_FL_ENABLED != 0))
                    }
                default: break
                }
            }
            self.videoNodes = videoNodes
            self.links = links
            return
        }
        throw CaptureError("\(path): the media graph kept changing while it was read")
    }

    /// A device node's number (`st_rdev`) from its major and minor numbers.
    public static func deviceNumber(major: UInt32, minor: UInt32) -> UInt64 { UInt64(kamera_makedev(major, minor)) }

    /// The media device whose graph holds the video node at `path`, from
    /// `/dev/media*`; nil when none does (a camera without a media controller).
    public static func holding(videoNode path: String) -> (graph: MediaGraph, device: dev_t)? {
        var node = stat()
        guard stat(path, &node) == 0, (node.st_mode & S_IFMT) == S_IFCHR else { return nil }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? [])
            .filter { $0.hasPrefix("media") && Int($0.dropFirst(5)) != nil }
            .sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }
        for name in names.prefix(64) {
            if let graph = try? MediaGraph(path: "/dev/" + name), graph.videoNodes[UInt64(node.st_rdev)] != nil {
                return (graph, node.st_rdev)
            }
        }
        return nil
    }
}
