/// The page at `/`: the live picture, the filter presets to switch between,
/// a snapshot link, a button that starts and stops a recording, the server's state and the analysers' latest record
/// (from `/state`, once a second: programs that want every record read `/events`). `/?filter=NAME` chooses a
/// filter as the list does, once the page has loaded; `/?snapshot` clicks the snapshot link and `/?record` the
/// record button (unless a recording is being made), so that a bookmark can do either.
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
    img#live { max-width: 100vw; max-height: 85vh; }
    a { color: #9cf; }
    pre { margin: 0; max-width: 100vw; white-space: pre-wrap; }
    </style>
    </head>
    <body>
    <main>
    <img id="live" src="stream" alt="the live picture">
    <div>
    <label>Filter <select id="filter"></select></label> ·
    <a id="snapshot" href="snapshot" download="kamera.jpg">Snapshot</a> ·
    <button id="record" type="button">Record</button> ·
    <span id="state"></span>
    </div>
    <pre id="results"></pre>
    </main>
    <script>
    const list = document.getElementById("filter");
    const results = document.getElementById("results");
    async function choose(name) {
      const answer = await fetch("filter?name=" + encodeURIComponent(name), { method: "POST", headers: { "X-Kamera-Control": "1" } });
      document.getElementById("state").textContent = (await answer.text()).trim();
    }
    list.addEventListener("change", () => choose(list.value));
    const record = document.getElementById("record");
    let recording = null;
    record.addEventListener("click", async () => {
      const answer = await fetch("record?action=" + (recording ? "stop" : "start"), { method: "POST", headers: { "X-Kamera-Control": "1" } });
      document.getElementById("state").textContent = (await answer.text()).trim();
    });
    async function poll(first) {
      try {
        const s = await (await fetch("state", { cache: "no-store" })).json();
        if (first) {
          for (const name of s.filters) list.add(new Option(name, name));
          const params = new URLSearchParams(location.search);
          const asked = params.get("filter");
          if (asked) { list.value = asked; await choose(asked); }
          // A bookmark's actions, done by the page's own buttons: /?snapshot downloads one, /?record starts a recording.
          if (params.has("snapshot")) document.getElementById("snapshot").click();
          if (params.has("record") && !s.recording) record.click();
        }
        if (document.activeElement !== list) list.value = s.filter;
        recording = s.recording;
        record.textContent = recording ? `Stop recording ${recording}` : "Record";
        document.getElementById("state").textContent =
          `${s.width}x${s.height}, ${s.fps.toFixed(1)} fps, ${s.clients} watching, ${s.dropped} dropped`;
        if (s.analysis) {
          const found = Object.entries(s.analysis).filter(([key]) => !["frame", "sequence", "timestamp"].includes(key));
          results.textContent = `frame ${s.analysis.frame}: ` + found.map(([key, value]) => `${key} ${JSON.stringify(value)}`).join("  ");
        }
      } catch (e) {}
      setTimeout(() => poll(false), 1000);
    }
    poll(true);
    </script>
    </body>
    </html>
    """
}
