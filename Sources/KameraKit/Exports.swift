// The `Kamera` library product: one import gives the whole chain. Kamera's
// own modules import each layer they use by name instead.
@_exported import Analysis
@_exported import Analyzers
@_exported import Capture
@_exported import DRM
@_exported import Detection
@_exported import Filters
@_exported import GPU
@_exported import Lifecycle
@_exported import Messages
@_exported import Output
@_exported import Pipeline
@_exported import Pixels
@_exported import Render
