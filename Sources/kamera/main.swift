import GPU
import Capture
for p in [GPUPlatform.auto, .surfaceless, .device] {
  for v in [GLESVersion.gles2, .gles3] {
    do { let c = try GPUContext(platform: p, version: v); print(p, v, c.summary, c.glExtensions.contains("GL_EXT_texture_format_BGRA8888"))
      let cache = try TextureCache(context: c)
      let tp = TestPattern(width: 64, height: 48, format: .yuyv)
      let t = try cache.texture(for: try tp.nextFrame()!)
      print(t)
    } catch { print("ERR", error) }
  }
}
