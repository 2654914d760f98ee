// The `Kamera` library product: one import gives the whole chain.
@_exported import Capture
@_exported import DRM
@_exported import Filters
@_exported import GPU
@_exported import Lifecycle
@_exported import Output
@_exported import Render
