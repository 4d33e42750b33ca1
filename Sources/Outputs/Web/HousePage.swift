/// The page a watch of several cameras serves at `/`: a tile a camera, with the picture the model
/// last answered, its state (watching, lost, not watched), and each of its rules' answer and strip
/// of recent answers; a tile's name leads to the camera's own page (`/camera/NAME/`). It starts
/// from the cameras as they were when served (`INITIAL_STATE`), then reads `/api/cameras` every
/// 1.5 s and asks for a picture or a strip again only when its camera answered a new frame.
enum HousePage {
    /// The page with `state` (`/api/cameras`' JSON) in it.
    static func html(state: String) -> String {
        template.replacingOccurrences(of: "/*INITIAL_STATE*/null", with: WebPage.scriptSafe(state))
    }

    static let template = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>lookd: cameras</title>
        <style>
        \#(WebPage.baseStyle)
          header { display: flex; gap: 14px; align-items: baseline; padding: 10px 14px; }
          main { display: grid; gap: 10px; padding: 0 10px 14px; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); }
          .tile { background: var(--band); border-radius: 10px; padding: 10px 12px; }
          .tile h2 { font-size: 16px; margin: 0 0 4px; } .tile h2 a { color: #eee; }
          .tile .state { color: var(--dim); font-size: 13px; margin-bottom: 6px; }
          .tile.lost .state, .tile.absent .state { color: var(--unread); }
          .tile img.frame { width: 100%; border-radius: 6px; background: #000; min-height: 90px; display: block; }
          table { width: 100%; border-collapse: collapse; margin-top: 6px; }
          td { padding: 3px 4px; border-top: 1px solid var(--line); vertical-align: top; font-size: 14px; }
          td.answer { width: 3.2em; font-weight: 600; text-align: center; }
          td.strip { border-top: none; padding-top: 0; } td.strip img { width: 100%; height: 20px; display: block; }
          .yes { color: var(--yes); } .no { color: var(--no); } .unread { color: var(--unread); }
          .empty { color: var(--dim); }
        </style>
        </head>
        <body>
        <header><h1>lookd: <span id="count"></span></h1><a id="history" href="/history">history</a></header>
        <main id="tiles"><span class="empty">no camera yet</span></main>
        <script>
        \#(WebPage.baseScript)
        document.getElementById("history").href = withToken("/history");
        const answerClass = { yes: "yes", no: "no", "?": "unread" };
        const shown = {};

        // A camera's tile, made once and then brought up to date.
        function tile(c) {
          let t = document.querySelector('[data-camera="' + CSS.escape(c.camera) + '"]');
          if (!t) {
            t = document.createElement("article");
            t.className = "tile";
            t.dataset.camera = c.camera;
            const h = document.createElement("h2");
            const a = text("a", c.camera);
            a.setAttribute("href", withToken(c.page));
            h.append(a);
            const img = document.createElement("img");
            img.className = "frame";
            img.alt = "the latest frame of " + c.camera + " the model answered";
            t.append(h, text("div", "", "state"), img, document.createElement("table"));
          }
          return t;
        }

        function show(cameras) {
          const list = document.getElementById("tiles");
          document.getElementById("count").textContent = cameras.length + (cameras.length === 1 ? " camera" : " cameras");
          if (cameras.length && list.querySelector(".empty")) list.replaceChildren();
          const names = new Set(cameras.map((c) => c.camera));
          for (const old of [...list.querySelectorAll(".tile")]) if (!names.has(old.dataset.camera)) old.remove();
          for (const c of cameras) {
            const t = tile(c);
            list.append(t);
            const s = c.status || {};
            const lost = c.not_watched ? "absent" : s.source_up === false ? "lost" : "";
            t.className = "tile " + lost;
            t.querySelector(".state").textContent = c.not_watched ? "not watched: " + c.not_watched
              : (c.ended ? "ended" : s.state || "starting") + " · frame " + (c.frame || 0) + " · " + (s.fires || 0) + " fires"
                + (c.ended ? " (" + c.ended + ")" : "");
            const img = t.querySelector("img.frame");
            img.hidden = !c.frame;
            if (c.frame && shown[c.camera] !== c.frame) img.src = withToken(c.page + "frame.jpg", { n: c.frame });
            const rows = t.querySelector("table");
            if (shown[c.camera] === c.frame && rows.children.length) continue;
            shown[c.camera] = c.frame;
            rows.replaceChildren();
            for (const r of s.rules || []) {
              const answer = r.switched_off ? "off" : r.inactive ? "inactive" : (r.answer || "–");
              const tr = document.createElement("tr");
              tr.dataset.rule = r.rule;
              tr.append(text("td", answer, "answer " + (answerClass[answer] || "")), text("td", r.condition + " → " + r.reaction));
              const strip = document.createElement("tr");
              const cell = document.createElement("td");
              cell.colSpan = 2;
              cell.className = "strip";
              const svg = document.createElement("img");
              svg.alt = "the latest answers of " + r.condition + " on " + c.camera;
              svg.setAttribute("src", withToken(c.page + "timeline.svg", { rule: r.rule, frame: c.frame || 0 }));
              cell.append(svg);
              strip.append(cell);
              rows.append(tr, strip);
            }
          }
        }

        const initial = /*INITIAL_STATE*/null;
        if (initial) show(initial);
        setInterval(async () => {
          try { show(await (await fetch(withToken("/api/cameras"))).json()); } catch (e) { document.getElementById("count").textContent = "reconnecting…"; }
        }, 1500);
        </script>
        </body>
        </html>
        """#
}
