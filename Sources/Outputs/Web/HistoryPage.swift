import Foundation
import History
import LookCore

/// The review page `/history` and its data `/api/history`: the fires the history keeps, newest
/// first, each with its snapshot, rule, time, description and clip (playing in the page), filtered by rule and by day, a page
/// of `pageSize` at a time. The page is one HTML file with its script; the fires' words are set as
/// text, never as markup.
enum HistoryPage {
    static let pageSize = 20

    /// `/api/history?rule=WORDS&camera=NAME&day=YYYY-MM-DD&page=N` from the history at `path`:
    /// `fires`, `rules` (every rule the history has, for the filter), `cameras` (those of the watch,
    /// for the filter, when it has several), `page` and `more`. The day is this machine's. `place`:
    /// where a fire's snapshot and clip are served, before `/snapshots/` and `/clips/`, by its camera.
    static func json(
        path: String?, query: [String: String], now: Date, zone: TimeZone = .current, cameras: [String] = [],
        place: (CameraName) -> String = { _ in "" }
    ) -> (status: Int, body: String) {
        guard let path else { return (404, #"{"error":"the history is off (\(SettingName.history) off)"}"#) }
        var filter = HistoryQuery(rule: query["rule"].flatMap { $0.isEmpty ? nil : $0 }, limit: pageSize + 1)
        filter.cameras = Set(query["camera"].map { [$0] } ?? []).subtracting([""])
        let page = max(1, min(Int(query["page"] ?? "") ?? 1, 100_000))
        filter.offset = (page - 1) * pageSize
        if let day = query["day"], !day.isEmpty {
            guard let start = HistoryQuery.time(day, now: now, zone: zone), day.count == 10 else {
                return (400, #"{"error":"day is YYYY-MM-DD"}"#)
            }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            (filter.since, filter.until) = (start, calendar.date(byAdding: .day, value: 1, to: start))
        }
        guard FileManager.default.fileExists(atPath: path) else {
            return (
                200,
                JSON.object([
                    ("fires", .array([])), ("rules", .array([])), ("cameras", .strings(cameras)), ("page", .int(page)), ("more", .bool(false)),
                ])
                .text()
            )
        }
        do throws(SQLiteError) {
            let store = try HistoryStore(path: path, readOnly: true)
            let fires = try store.fires(filter)
            let shown = fires.prefix(pageSize).map { fire -> JSON in
                guard case .object(var fields) = fire.json else { return fire.json }
                let name = fire.snapshot.map { ($0 as NSString).lastPathComponent }
                let served = place(fire.camera)
                fields.append(("snapshot_url", .optional(name.map { served + "/snapshots/" + $0 })))
                fields.append(("clip_url", .optional(fire.clip.map { served + "/clips/" + ($0 as NSString).lastPathComponent })))
                return .object(fields)
            }
            return (
                200,
                JSON.object([
                    ("fires", .array(shown)), ("rules", .strings(try store.conditions())), ("cameras", .strings(cameras)), ("page", .int(page)),
                    ("more", .bool(fires.count > pageSize)),
                ]).text()
            )
        } catch {
            return (500, JSON.object([("error", .string("the history cannot be read: \(error)"))]).text())
        }
    }

    /// The page with its first page of fires in it (`initial`: `/api/history`'s JSON for the
    /// address's filters), so that it shows them at its first paint.
    static func html(initial: String, base: String = "") -> String {
        WebPage.based(template, base).replacingOccurrences(of: "/*INITIAL*/null", with: WebPage.scriptSafe(initial))
    }

    static let template = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>lookd: history</title>
        <style>
        \#(WebPage.baseStyle)
          header { display: flex; gap: 14px; align-items: baseline; flex-wrap: wrap; padding: 10px 14px; }
          form { display: flex; gap: 8px; align-items: center; }
          select, input, button { background: var(--band); color: #eee; border: 1px solid var(--line); border-radius: 6px; padding: 4px 8px; }
          main { padding: 0 10px 14px; display: flex; flex-direction: column; gap: 8px; }
          article { background: var(--band); border-radius: 10px; padding: 8px 10px; display: flex; gap: 12px; align-items: flex-start; }
          article img, article video { width: 200px; border-radius: 6px; background: #000; }
          .when, .meta { color: var(--dim); font-size: 13px; }
          .description { color: #cfcfd6; font-style: italic; margin: 4px 0 0; }
          nav { display: flex; gap: 8px; align-items: center; padding: 0 14px 14px; }
          .empty { color: var(--dim); padding: 0 4px; }
        </style>
        </head>
        <body>
        <header><h1>lookd: history</h1><a id="live" href="/">the live page</a>
          <form id="filters"><select id="rule"><option value="">every rule</option></select><select id="camera" hidden><option value="">every camera</option></select><input id="day" type="date"></form></header>
        <main id="fires"><span class="empty">loading…</span></main>
        <nav><button id="newer" type="button">newer</button><span id="page"></span><button id="older" type="button">older</button></nav>
        <script>
        \#(WebPage.baseScript)
        document.getElementById("live").href = withToken("/");
        // The first filters may come in the address (/history?rule=cat&day=2026-12-03&page=2).
        let page = Math.max(1, Number(params.get("page")) || 1);
        let wanted = params.get("rule") || "", wantedCamera = params.get("camera") || "";
        document.getElementById("day").value = params.get("day") || "";
        async function load() {
          const rule = wanted !== null ? wanted : document.getElementById("rule").value, day = document.getElementById("day").value;
          const camera = wantedCamera !== null ? wantedCamera : document.getElementById("camera").value;
          const r = await fetch(withToken("/api/history", { rule, camera, day, page }));
          render(await r.json());
        }
        function render(data) {
          const list = document.getElementById("fires");
          list.replaceChildren();
          if (data.error) { list.append(text("span", data.error, "empty")); return; }
          const select = document.getElementById("rule");
          for (const name of data.rules) {
            if (![...select.options].some(o => o.value === name)) select.append(new Option(name, name));
          }
          if (wanted !== null) { select.value = wanted; wanted = null; }
          // A watch of several cameras: the fires of one, or of every camera.
          const cameras = document.getElementById("camera");
          for (const name of data.cameras || []) {
            if (![...cameras.options].some(o => o.value === name)) cameras.append(new Option(name, name));
          }
          cameras.hidden = cameras.options.length < 2;
          if (wantedCamera !== null) { cameras.value = wantedCamera; wantedCamera = null; }
          if (!data.fires.length) list.append(text("span", "no fires", "empty"));
          for (const f of data.fires) {
            const item = document.createElement("article");
            item.className = "fire";
            item.dataset.rule = f.condition;
            if (f.snapshot_url) { const img = document.createElement("img"); img.src = withToken(f.snapshot_url); img.alt = "snapshot of " + f.condition; item.append(img); }
            const words = document.createElement("div");
            const meta = text("div", (f.camera ? f.camera + " · " : "") + f.reaction + (f.confidence != null ? " · P(yes) " + f.confidence.toFixed(2) : "") + " · frame " + f.frame, "meta");
            words.append(text("strong", f.condition), text("div", new Date(f.time).toLocaleString(), "when"), meta);
            if (f.clip_url) {
              const video = document.createElement("video");
              Object.assign(video, { controls: true, preload: "metadata", muted: true, src: withToken(f.clip_url) });
              video.setAttribute("aria-label", "clip of " + f.condition);
              // Its length once the browser has read the clip's index (at the front: faststart).
              video.onloadedmetadata = () => {
                item.dataset.clipSeconds = video.duration.toFixed(2);
                meta.append(" · clip " + video.duration.toFixed(1) + " s");
              };
              item.append(video);
            }
            if (f.description) words.append(text("p", f.description, "description"));
            item.append(words);
            list.append(item);
          }
          document.getElementById("page").textContent = "page " + data.page;
          document.getElementById("newer").disabled = page <= 1;
          document.getElementById("older").disabled = !data.more;
        }
        document.getElementById("rule").onchange = () => { page = 1; load(); };
        document.getElementById("camera").onchange = () => { page = 1; load(); };
        document.getElementById("day").onchange = () => { page = 1; load(); };
        document.getElementById("newer").onclick = () => { page = Math.max(1, page - 1); load(); };
        document.getElementById("older").onclick = () => { page += 1; load(); };
        const initial = /*INITIAL*/null;
        if (initial) render(initial); else load();
        </script>
        </body>
        </html>
        """#
}
