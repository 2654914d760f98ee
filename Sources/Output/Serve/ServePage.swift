/// The page at `/`: the live picture, a snapshot link and the server's state.
enum ServePage {
    static let html = """
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Kamera</title>
    <style>
    body { margin: 0; background: #111; color: #ddd; font: 14px system-ui, sans-serif; }
    main { display: flex; flex-direction: column; align-items: center; gap: 8px; padding: 8px; }
    img#live { max-width: 100vw; max-height: 85vh; image-rendering: auto; }
    a { color: #9cf; }
    </style>
    </head>
    <body>
    <main>
    <img id="live" src="stream" alt="the live picture">
    <div><a id="snapshot" href="snapshot" download="kamera.jpg">Snapshot</a> · <span id="state"></span></div>
    </main>
    <script>
    async function poll() {
      try {
        const s = await (await fetch("state", { cache: "no-store" })).json();
        document.getElementById("state").textContent =
          `${s.width}x${s.height}, ${s.fps.toFixed(1)} fps, ${s.clients} watching, ${s.dropped} dropped`;
      } catch (e) {}
      setTimeout(poll, 1000);
    }
    poll();
    </script>
    </body>
    </html>
    """
}
