import LookCore

/// The page `--http` serves at `/`: one HTML file with its CSS and script, no outside assets. It
/// shows what the seed's Watch screen shows, in bands: the picture the model answered, the rules
/// with their answers and reactions, the numbers lines, the last fires with their snapshots, the
/// last log lines and the change gate's share. The state at the time it is served comes inside it
/// (`INITIAL_STATE`, so the first paint needs no second request); then it reads `/api/events`
/// (server-sent events) and asks for the picture again only when a new frame was answered.
enum WebPage {
    /// The page with `state` (a JSON object: status, fires, frame) in it.
    /// `base`: where the page is served ("" at the root; `/camera/NAME` for a camera of several).
    static func html(state: String, base: String = "") -> String {
        based(template, base).replacingOccurrences(of: "/*INITIAL_STATE*/null", with: scriptSafe(state))
    }

    /// `page` with its script's `base` set: every address the page asks for starts with it.
    static func based(_ page: String, _ base: String) -> String {
        page.replacingOccurrences(of: "const base = \"\";", with: "const base = \(scriptSafe(JSON.string(base).text()));")
    }

    /// JSON made safe inside a `<script>`: `<`, `>` and `&` (which can be read as `</script>`, `<!--`
    /// or an entity) become `\uXXXX` escapes, which only occur inside JSON strings, where they mean
    /// the same characters. (lookd's JSON escapes the line separators JavaScript ends a line at.)
    static func scriptSafe(_ json: String) -> String {
        var out = ""
        out.reserveCapacity(json.utf8.count)
        for scalar in json.unicodeScalars {
            switch scalar {
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The style and script both pages start with: the colours, the page's box, and in the script
    /// the page's `base`, the address's query (`params`), its token (`withToken` puts the base
    /// before a path and keeps the token on every link and request)
    /// and `text`, which makes an element whose words are text, never markup.
    static let baseStyle = #"""
          :root { color-scheme: dark; --bg: #111; --band: #1b1b1d; --line: #2c2c30; --dim: #9a9aa2; --yes: #3ecf6e; --no: #6b6b73; --unread: #e0b040; }
          * { box-sizing: border-box; }
          body { margin: 0; background: var(--bg); color: #eee; font: 15px/1.4 system-ui, sans-serif; }
          header h1 { font-size: 18px; margin: 0; } header a { color: var(--dim); }
        """#
    static let baseScript = #"""
        "use strict";
        const base = "";
        const params = new URLSearchParams(location.search);
        const token = params.get("token");
        const withToken = (path, more) => {
          const q = new URLSearchParams(more || {});
          if (token) q.set("token", token);
          const s = q.toString();
          return s ? base + path + "?" + s : base + path;
        };
        const text = (tag, content, cls) => { const e = document.createElement(tag); e.textContent = content; if (cls) e.className = cls; return e; };
        """#

    static let template = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>lookd</title>
        <style>
        \#(baseStyle)
          header { display: flex; justify-content: space-between; align-items: baseline; padding: 10px 14px; }
          #state { color: var(--dim); font-size: 13px; }
          main { display: grid; gap: 10px; padding: 0 10px 14px; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); }
          @media (max-width: 800px) { main { grid-template-columns: 1fr; } }
          section { background: var(--band); border-radius: 10px; padding: 10px 12px; }
          section h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .08em; color: var(--dim); margin: 0 0 6px; }
          #picture { grid-row: span 3; }
          #frame { width: 100%; border-radius: 6px; background: #000; min-height: 120px; display: block; }
          #frameinfo { color: var(--dim); font-size: 13px; margin-top: 4px; }
          table { width: 100%; border-collapse: collapse; }
          td { padding: 5px 4px; border-top: 1px solid var(--line); vertical-align: top; }
          td.answer { width: 3.2em; font-weight: 600; text-align: center; }
          .yes { color: var(--yes); } .no { color: var(--no); } .unread { color: var(--unread); }
          .description { color: #cfcfd6; font-style: italic; }
          td.shown, td.fired { color: var(--dim); white-space: nowrap; text-align: right; }
          td.strip { border-top: none; padding-top: 0; } td.strip img { width: 100%; height: 28px; display: block; }
          pre { margin: 0; white-space: pre-wrap; font: 13px/1.35 ui-monospace, monospace; color: #ccc; }
          #fires { display: flex; flex-direction: column; gap: 6px; }
          .fire { display: flex; gap: 8px; align-items: center; }
          .fire img { width: 96px; border-radius: 4px; }
          .fire .when { color: var(--dim); font-size: 12px; }
          .empty { color: var(--dim); }
        </style>
        </head>
        <body>
        <header><h1>lookd <span id="name"></span></h1><a id="history" href="/history">history</a><span id="state">connecting…</span></header>
        <main>
          <section id="picture"><h2>What the model sees</h2><img id="frame" alt="the latest frame the model answered"><div id="frameinfo">no frame yet</div></section>
          <section><h2>Rules</h2><table id="rules"></table></section>
          <section><h2>Numbers</h2><pre id="numbers" class="empty">none yet</pre><pre id="gate"></pre></section>
          <section><h2>Fires</h2><div id="fires"><span class="empty">none yet</span></div></section>
          <section><h2>Log</h2><pre id="log" class="empty">none yet</pre></section>
        </main>
        <script>
        \#(baseScript)
        document.getElementById("history").href = withToken("/history");
        const $ = (id) => document.getElementById(id);
        const answerClass = { yes: "yes", no: "no", "?": "unread" };

        // The header names the frame the picture shows, once there is one: the status comes at most
        // twice a second, the picture with every frame, so their numbers would disagree.
        let lastStatus = null, shownFrame = 0;
        function showHeader() {
          const s = lastStatus || {};
          $("state").textContent = (s.state || "") + " · frame " + (shownFrame || s.frame || 0) + " · " + (s.fires || 0) + " fires";
        }

        function showStatus(s) {
          lastStatus = s;
          showHeader();
          $("name").textContent = "· " + (s.source || "");
          const rows = $("rules");
          rows.replaceChildren();
          (s.rules || []).forEach((r) => {
            const tr = document.createElement("tr");
            tr.dataset.rule = r.rule;
            const answer = r.switched_off ? "off" : r.inactive ? "inactive" : (r.answer || "–");
            tr.append(
              text("td", answer, "answer " + (answerClass[answer] || "")),
              text("td", r.rule + ". " + r.condition + " → " + r.reaction),
              text("td", r.switched_off ? "switched off" : r.shown, "shown"),
              text("td", "fired ×" + r.fires, "fired"));
            rows.append(tr);
            // Its last answers as a strip (the same drawing as lookd eval's report), redrawn with each status.
            const strip = document.createElement("tr");
            const cell = document.createElement("td");
            cell.colSpan = 4;
            cell.className = "strip";
            const img = document.createElement("img");
            img.alt = "the latest answers of rule " + r.rule;
            img.setAttribute("src", withToken("/timeline.svg", { rule: r.rule, frame: s.frame || 0 }));
            cell.append(img);
            strip.append(cell);
            rows.append(strip);
          });
          const numbers = s.numbers || [];
          $("numbers").textContent = numbers.length ? numbers.join("\n") : "none yet";
          $("numbers").className = numbers.length ? "" : "empty";
          const g = s.gate;
          $("gate").textContent = g && g.skipped_share != null
            ? "change gate: " + Math.round(g.skipped_share * 100) + " % of " + g.offered + " frames skipped" : "";
          const log = s.log || [];
          $("log").textContent = log.length ? log.slice(-8).join("\n") : "none yet";
          $("log").className = log.length ? "" : "empty";
        }

        function showFire(f) {
          const list = $("fires");
          const known = list.querySelector('[data-fire="' + f.fire + '"]');
          if (known) {
            // The same fire again: its description or its clip has come.
            if (f.description && !known.querySelector(".description")) known.lastChild.append(text("div", f.description, "description"));
            if (f.clip_url && !known.querySelector("a.clip")) known.lastChild.append(clipLink(f));
            return;
          }
          if (list.querySelector(".empty")) list.replaceChildren();
          const div = document.createElement("div");
          div.className = "fire";
          div.dataset.fire = f.fire;
          if (f.snapshot) {
            const name = f.snapshot.split("/").pop();
            const url = withToken("/snapshots/" + name);
            const a = document.createElement("a");
            a.setAttribute("href", url);
            const img = document.createElement("img");
            img.setAttribute("src", url);
            img.alt = "snapshot of fire " + f.fire;
            a.append(img);
            div.append(a);
          }
          const words = document.createElement("div");
          words.append(text("div", f.condition + " → " + f.reaction + (f.shown ? " (" + f.shown + ")" : "")),
                       text("div", "fire " + f.fire + " · frame " + f.frame + " · " + new Date(f.time).toLocaleTimeString(), "when"));
          if (f.description) words.append(text("div", f.description, "description"));
          if (f.clip_url) words.append(clipLink(f));
          div.append(words);
          list.prepend(div);
          while (list.children.length > 12) list.lastChild.remove();
        }

        function clipLink(f) {
          const a = text("a", "clip" + (f.clip_s != null ? " (" + f.clip_s.toFixed(1) + " s)" : ""), "clip");
          a.setAttribute("href", withToken(f.clip_url));
          return a;
        }

        function showFrame(n) {
          $("frame").src = withToken("/frame.jpg", { n: n });
          $("frame").dataset.frame = n;
          $("frameinfo").textContent = "frame " + n;
          shownFrame = n;
          showHeader();
        }

        const initial = /*INITIAL_STATE*/null;
        if (initial) {
          showStatus(initial.status);
          initial.fires.forEach(showFire);
          if (initial.frame) showFrame(initial.frame);
        }
        const events = new EventSource(withToken("/api/events"));
        events.addEventListener("status", (e) => showStatus(JSON.parse(e.data)));
        events.addEventListener("fire", (e) => showFire(JSON.parse(e.data)));
        events.addEventListener("frame", (e) => showFrame(JSON.parse(e.data).frame));
        events.onerror = () => { $("state").textContent = "reconnecting…"; };
        </script>
        </body>
        </html>
        """#
}
