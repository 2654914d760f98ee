import Filters

/// A frame's GPU work as an ordered list of steps: the conversion, each
/// filter, the stages a program adds (the shader harness's passes), the
/// layout and the overlays. The rewrites make it cheaper without changing
/// the picture beyond the tolerances the tests state; each is written here once.
public struct RenderPlan {
    public enum Step {
        /// The frame becomes a texture (the frame uploader), this matrix
        /// applied in a YUV conversion (identity: none), as a mosaic of
        /// blocks this size when above 1 (`pixellate=N` done by a CPU conversion).
        case conversion(ColorMatrix, mosaic: Int)
        case filter(any Filter)
        /// The stage at this index of the renderer's `customStages`.
        case custom(Int)
        /// The final draw (preview or cube), through this matrix.
        case layout(ColorMatrix)
        /// The overlay at this index of the renderer's `overlays`.
        case overlay(Int)
    }

    public private(set) var steps: [Step]
    private let filters: FilterChain
    private let customStages: Int
    private let overlays: Int

    /// The steps as asked for, before any rewrite.
    public init(filters: FilterChain, customStages: Int = 0, overlays: Int = 0) {
        (self.filters, self.customStages, self.overlays) = (filters, customStages, overlays)
        steps = Self.steps(filters.filters, customStages: customStages, overlays: overlays)
    }

    private static func steps(_ filters: [any Filter], customStages: Int, overlays: Int) -> [Step] {
        [.conversion(.identity, mosaic: 1)] + filters.map { .filter($0) } + (0..<customStages).map { .custom($0) }
            + [.layout(.identity)] + (0..<overlays).map { .overlay($0) }
    }

    /// The rewrites, each of which can be turned off (tests compare the
    /// pictures with and without each).
    public struct Rewrites: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Consecutive color matrices multiplied into one (`FilterChain.folded`).
        public static let foldMatrices = Rewrites(rawValue: 1)
        /// A color matrix just before the layout is drawn by the layout itself.
        public static let matrixIntoLayout = Rewrites(rawValue: 2)
        /// The layout's matrix, with nothing between, applied in the frame's
        /// conversion: a YUV frame's (to the color the YUV values encode, before
        /// clamping), or that of an RGB or gray frame the CPU converts.
        public static let matrixIntoConversion = Rewrites(rawValue: 4)
        /// No layout at all when it would copy a CPU conversion pixel for pixel:
        /// the conversion's bytes are the picture.
        public static let passthrough = Rewrites(rawValue: 8)
        /// A pixellate just after a CPU conversion done by the conversion,
        /// which then converts one pixel a block.
        public static let mosaicIntoConversion = Rewrites(rawValue: 16)
        public static let all: Rewrites = [.foldMatrices, .mosaicIntoConversion, .matrixIntoLayout, .matrixIntoConversion, .passthrough]
    }

    /// What decides, frame by frame, whether a rewrite applies.
    public struct Conditions: Equatable, Sendable {
        /// The frame's conversion can apply a matrix: it is YUV, or the CPU converts it.
        public var conversionTakesMatrix = false
        /// The conversion happens on the CPU, into memory, and could hand over its bytes.
        public var convertsToMemory = false
        /// The layout would copy the converted picture pixel for pixel.
        public var layoutCopies = false
        /// The picture is read back rather than shown on a screen, and this is
        /// not the run's first frame (which is drawn, so that the layout's shaders
        /// compile up front and not at a live run's first zoom).
        public var mayPassThrough = false

        public init() {}
    }

    /// The plan after `rewrites`, where `conditions` allow.
    public func rewritten(_ rewrites: Rewrites, _ conditions: Conditions) -> RenderPlan {
        var plan = self
        if rewrites.contains(.foldMatrices) {
            plan.steps = Self.steps(filters.folded, customStages: customStages, overlays: overlays)
        }
        if rewrites.contains(.mosaicIntoConversion) && conditions.convertsToMemory { plan.foldMosaicIntoConversion() }
        if rewrites.contains(.matrixIntoLayout) { plan.foldMatrixIntoLayout() }
        if rewrites.contains(.matrixIntoConversion) && conditions.conversionTakesMatrix { plan.foldMatrixIntoConversion() }
        if rewrites.contains(.passthrough) && conditions.convertsToMemory && conditions.layoutCopies && conditions.mayPassThrough {
            plan.passThrough()
        }
        return plan
    }

    private mutating func foldMosaicIntoConversion() {
        guard steps.count >= 2, case .conversion(let m, mosaic: 1) = steps[0], case .filter(let filter) = steps[1],
              let pixellate = filter as? PixellateFilter else { return }
        steps[0] = .conversion(m, mosaic: pixellate.blockSize)
        steps.remove(at: 1)
    }

    private mutating func foldMatrixIntoLayout() {
        guard let layout = steps.firstIndex(where: { if case .layout = $0 { true } else { false } }), layout > 0,
              case .layout(let after) = steps[layout], case .filter(let filter) = steps[layout - 1], let m = filter.colorMatrix else { return }
        steps[layout] = .layout(m.then(after))
        steps.remove(at: layout - 1)
    }

    private mutating func foldMatrixIntoConversion() {
        guard steps.count >= 2, case .conversion(let before, let mosaic) = steps[0], case .layout(let m) = steps[1],
              m != .identity, before.then(m).rgbTransform != nil else { return }
        steps[0] = .conversion(before.then(m), mosaic: mosaic)
        steps[1] = .layout(.identity)
    }

    private mutating func passThrough() {
        guard steps.count == 2, case .conversion(let m, _) = steps[0], m == .identity || m.rgbTransform != nil,
              case .layout(.identity) = steps[1] else { return }
        steps.removeLast()
    }

    /// True when the conversion is followed directly by the layout: the
    /// conversion may then make the picture at the size the layout shows it.
    public var layoutFollowsConversion: Bool {
        steps.count >= 2 && { if case .layout = steps[1] { true } else { false } }()
    }

    /// The conversion's matrix.
    public var conversionMatrix: ColorMatrix {
        if case .conversion(let m, _) = steps.first { m } else { .identity }
    }

    /// The conversion's mosaic block, 1 for none.
    public var conversionMosaic: Int {
        if case .conversion(_, let mosaic) = steps.first { mosaic } else { 1 }
    }
}
