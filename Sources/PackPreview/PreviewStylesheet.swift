/// assets/preview.css: the pages' stylesheet, kept in the tool so a preview needs no file beside the binary.
enum PreviewStylesheet {
    static let text = #"""
        /* packtool preview: a calm page around the pictures, rust for conjecture as in the app. */
        :root {
          --ink: #1d1b19; --muted: #5f5a54; --paper: #faf7f2; --card: #ffffff; --line: #ddd5ca;
          --rust: #b7410e; --rust-soft: rgba(183, 65, 14, 0.16); --amber: #a86a00; --red: #b3261e; --green: #2e6b3a;
          font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--paper);
        }
        body { margin: 0 auto; max-width: 1180px; padding: 0 20px 60px; line-height: 1.45; overflow-wrap: anywhere; }
        [hidden] { display: none !important; }
        /* Nothing wider than the screen (a phone is 390 px): pictures shrink, long names and paths break, tables and
           code scroll inside their own box. */
        *, *::before, *::after { box-sizing: border-box; }
        img, svg, video, audio, iframe { max-width: 100%; }
        main, section, header, figure, li, dd, dt, p { min-width: 0; }
        table { display: block; max-width: 100%; overflow-x: auto; border-collapse: collapse; }
        pre { max-width: 100%; overflow-x: auto; white-space: pre-wrap; }
        code { overflow-wrap: anywhere; word-break: break-word; }
        .plate-list { display: flex; flex-wrap: wrap; gap: 12px; margin: 12px 0; }
        .plate-static { margin: 0; max-width: 100%; }
        .plate-static img { display: block; max-width: 100%; height: auto; border-radius: 6px; }
        .live-error { position: sticky; top: 0; z-index: 10; margin: 0 -20px; padding: 10px 20px; background: #fbe9e7; color: var(--red);
          border-bottom: 2px solid var(--red); white-space: pre-wrap; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.85rem; }
        a { color: #1f4e79; }
        h1 { margin: 6px 0; font-size: 1.9rem; }
        h2 { font-size: 1.15rem; margin: 28px 0 10px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
        code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.9em; }
        .top { padding: 22px 0 8px; }
        .crumb, .crumbs, .sub { color: var(--muted); margin: 4px 0; }
        .summary { display: inline-block; padding: 4px 10px; border-radius: 6px; margin: 6px 0; }
        .summary.has-errors { background: #fbe9e7; color: var(--red); }
        .summary.clean { background: #e8f3ea; color: var(--green); }
        .num { display: inline-block; min-width: 1.6em; height: 1.6em; line-height: 1.6em; text-align: center; border-radius: 50%;
          background: var(--ink); color: #fff; font-size: 0.85em; margin-right: 6px; }
        .badge { display: inline-block; font-size: 0.78rem; padding: 1px 8px; border-radius: 10px; border: 1px solid var(--line); background: #fff; }
        .badge.error { color: var(--red); border-color: var(--red); }
        .badge.warning { color: var(--amber); border-color: var(--amber); }
        .badge.free, .badge.signed { color: var(--green); border-color: var(--green); }
        .badge.unsigned { color: var(--red); border-color: var(--red); }
        .empty, .clean { color: var(--muted); font-style: italic; }

        /* Route page */
        .route-map { width: 100%; height: auto; background: #efe9df; border-radius: 10px; border: 1px solid var(--line); }
        .route-map .ground { fill: #efe9df; }
        .route-line { fill: none; stroke: #7a6f62; stroke-width: 3; stroke-dasharray: 8 6; }
        .fov { fill: var(--rust-soft); stroke: var(--rust); stroke-width: 1; }
        .bearing { stroke: var(--rust); stroke-width: 2; }
        .target { fill: #1f4e79; }
        .anchor { fill: var(--ink); stroke: #fff; stroke-width: 2; }
        .anchor-number { fill: #fff; font-size: 12px; font-weight: 600; pointer-events: none; }
        .finding-ring { fill: none; stroke: var(--amber); stroke-width: 3; }
        .has-errors .finding-ring { stroke: var(--red); }
        .scale line { stroke: var(--ink); stroke-width: 3; }
        .scale text, .north { font-size: 12px; fill: var(--ink); }
        .legend { color: var(--muted); font-size: 0.85rem; }
        .key { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: middle; border-radius: 50%; }
        .anchor-key { background: var(--ink); } .fov-key { background: var(--rust-soft); border: 1px solid var(--rust); border-radius: 2px; }
        .target-key { background: #1f4e79; transform: rotate(45deg); border-radius: 0; } .ring-key { border: 3px solid var(--red); }
        .stops { list-style: none; padding: 0; }
        .stop-row { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 4px 16px; padding: 10px; margin: 8px 0; background: var(--card);
          border: 1px solid var(--line); border-left: 5px solid var(--green); border-radius: 8px; }
        .stop-row.has-warnings { border-left-color: var(--amber); }
        .stop-row.has-errors { border-left-color: var(--red); }
        .stop-row a { display: flex; flex-wrap: wrap; min-width: 0; align-items: center; gap: 10px; font-weight: 600; text-decoration: none; color: var(--ink); }
        .stop-row .leg { color: var(--muted); font-size: 0.9rem; }
        .stop-row .badges { grid-column: 1 / -1; }
        .thumb { width: 128px; height: 72px; object-fit: cover; border-radius: 4px; background: #ddd; }

        /* Stop page: the viewer */
        .controls { display: flex; flex-wrap: wrap; gap: 10px 18px; align-items: center; margin: 8px 0; }
        .chips, .crop-switch { display: flex; flex-wrap: wrap; gap: 6px; }
        .era-chip, .crop-button { font: inherit; padding: 5px 12px; border-radius: 16px; border: 1px solid var(--line); background: #fff; cursor: pointer; }
        .era-chip[aria-pressed="true"], .crop-button[aria-pressed="true"] { background: var(--ink); color: #fff; border-color: var(--ink); }
        .default-mark { font-size: 0.75em; opacity: 0.75; }
        .stage { margin: 0; }
        .frame { position: relative; display: inline-block; max-width: 100%; line-height: 0; background: #222; border-radius: 6px; overflow: hidden; }
        .frame[data-crop="9x16"] { max-width: min(100%, 420px); }
        .frame img { display: block; max-width: 100%; height: auto; }
        .mask { position: absolute; inset: 0; width: 100%; height: 100%; }
        .region { cursor: pointer; stroke: var(--rust); stroke-width: 3; }
        .region:hover, .region:focus { stroke-width: 6; outline: none; }
        .crop-outline { fill: none; stroke: #fff; stroke-width: 3; stroke-dasharray: 14 10; pointer-events: none; opacity: 0.85; }
        .hatch-bg { fill: rgba(183, 65, 14, 0.10); }
        .hatch-line { stroke: var(--rust); stroke-width: 5; }
        .hatch-line.inferred { stroke-width: 3; stroke-dasharray: 6 6; }
        .plate-error { color: #fff; padding: 40px 20px; line-height: 1.4; }
        figcaption { color: var(--muted); font-size: 0.9rem; margin-top: 6px; }
        .note { margin-top: 10px; padding: 10px 14px; border-left: 4px solid var(--rust); background: var(--card); border-radius: 4px; max-width: 760px; }
        .note-title { font-weight: 600; margin: 0 0 4px; color: var(--rust); }
        .note-text, .note-hint, .note-sources { margin: 0; }
        .note-sources { color: var(--muted); font-size: 0.9rem; margin-top: 4px; }
        .compare { position: relative; display: inline-block; max-width: 100%; line-height: 0; touch-action: none; user-select: none; cursor: ew-resize;
          border-radius: 6px; overflow: hidden; background: #222; }
        .compare[data-crop="9x16"] { max-width: min(100%, 420px); }
        .compare img { display: block; max-width: 100%; height: auto; pointer-events: none; }
        .compare-over { position: absolute; inset: 0; clip-path: inset(0 50% 0 0); }
        .compare-over img { width: 100%; height: 100%; object-fit: cover; }
        .compare-handle { position: absolute; top: 0; bottom: 0; left: 50%; width: 4px; margin-left: -2px; background: #fff; box-shadow: 0 0 0 1px rgba(0,0,0,0.4); }
        .compare-handle::after { content: ""; position: absolute; top: 50%; left: -12px; width: 28px; height: 28px; margin-top: -14px; border-radius: 50%;
          background: #fff; box-shadow: 0 1px 4px rgba(0,0,0,0.5); }
        .compare-handle:focus { outline: 3px solid var(--rust); }
        .hint-line { color: var(--muted); font-size: 0.85rem; }
        dl { display: grid; grid-template-columns: minmax(0, max-content) minmax(0, 1fr); gap: 4px 16px; }
        dt { color: var(--muted); } dd { margin: 0; }
        audio { width: 100%; max-width: 640px; }
        .transcript { padding-left: 0; list-style: none; max-width: 760px; }
        .voice-timeline { margin: 0.5rem 0; max-width: 760px; } .voice-timeline svg { width: 100%; height: 30px; display: block; background: #f4f1ea; }
        .voice-timeline rect.voice { fill: #2d6a4f; } .voice-timeline rect.cue-span { fill: #b5651d; stroke: #f4f1ea; stroke-width: 1; }
        .voice-timeline figcaption { color: var(--muted); font-size: 0.8rem; }
        .cue { padding: 4px 8px; border-radius: 4px; }
        .cue.current { background: var(--rust-soft); box-shadow: inset 3px 0 0 var(--rust); }
        .cue-time { font: inherit; font-size: 0.85rem; color: #1f4e79; background: none; border: 0; cursor: pointer; padding: 0 6px 0 0; font-variant-numeric: tabular-nums; }
        .source-list { padding-left: 18px; } .source { margin: 6px 0; }
        .use { font-size: 0.78rem; padding: 0 6px; border-radius: 8px; background: #eee; }
        .use-embedded { background: #fde8dd; } .eras { color: var(--muted); font-size: 0.85rem; }
        .status.current { color: var(--green); font-weight: 600; } .status.stale { color: var(--red); font-weight: 600; }
        blockquote { margin: 4px 0 0 12px; color: var(--muted); }
        .findings { list-style: none; padding: 0; }
        .finding { padding: 6px 10px; margin: 6px 0; background: var(--card); border-left: 4px solid var(--line); border-radius: 4px; }
        .finding.error { border-left-color: var(--red); } .finding.warning { border-left-color: var(--amber); }
        .finding .severity { font-weight: 600; } .finding.error .severity { color: var(--red); } .finding.warning .severity { color: var(--amber); }
        .hint { color: var(--muted); font-size: 0.9rem; }
        @media (max-width: 520px) {
          body { padding: 0 12px 40px; }
          h1 { font-size: 1.5rem; }
          dl { grid-template-columns: minmax(0, 1fr); } dd { margin-bottom: 6px; }
          .stop-row { grid-template-columns: minmax(0, 1fr); }
          .live-error { margin: 0 -12px; padding: 10px 12px; }
        }

        """#
}
