// The page's style sheet (inline, allowed by its hash in the Content-Security-Policy).

export const PAGE_STYLE = `
:root { color-scheme: light; --fg: #1d2430; --muted: #5d6878; --line: #d8dde6; --bg: #f7f8fa; --panel: #fff;
  --ok: #1f7a3a; --bad: #b3261e; --warn: #9a6400; --accent: #2457c5; --sum: #7a3fb0; --prune: #c46a00;
  font-family: "Noto Sans", "DejaVu Sans", "WenQuanYi Micro Hei", system-ui, sans-serif; font-size: 14px; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); }
#app { display: flex; flex-direction: column; min-height: 100vh; }
header.summary { padding: 10px 16px; background: var(--panel); border-bottom: 1px solid var(--line); }
header.summary h1 { font-size: 18px; margin: 0 12px 0 0; display: inline-block; }
.facts-line { margin: 6px 0 0; color: var(--muted); }
.status { color: var(--muted); font-size: 12px; }
.muted { color: var(--muted); }
.record-filter { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; font-size: 12px; margin: 0 0 4px; }
.record-filter select, .record-filter input[type=search] { font: inherit; font-size: 12px; max-width: 220px; }
.record-filter :focus-visible { outline: 2px solid var(--accent); }
.chart { position: relative; background: var(--panel); border-bottom: 1px solid var(--line); padding: 6px 16px; }
.chart svg { display: block; cursor: crosshair; }
.chart .plot { fill: #fbfcfe; stroke: var(--line); }
.chart .grid { stroke: #eceff4; }
.chart .axis { fill: var(--muted); font-size: 10px; }
.chart .axis-title { fill: var(--muted); font-size: 11px; }
.chart .tick { stroke: var(--muted); }
.chart svg:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.hover-line { stroke: var(--fg); stroke-width: 1; }
.mark-glyph { font-size: 11px; stroke: none; fill: currentColor; cursor: help; }
.chart-tooltip { position: absolute; z-index: 2; width: 260px; box-sizing: border-box; background: #fff; border: 1px solid var(--line); border-radius: 4px; box-shadow: 0 2px 6px rgba(0,0,0,.12); padding: 4px 8px; font-size: 12px; pointer-events: none; overflow-wrap: anywhere; }
.chart-tooltip .tip-head { font-weight: 600; }
.s-window { stroke: #6b7280; stroke-dasharray: 8 4; color: #6b7280; }
.m-rewrite { stroke: #b0207a; stroke-dasharray: 4 2; color: #b0207a; }
.m-switch { stroke: #2f6f3e; stroke-dasharray: 1 3; color: #2f6f3e; }
.chart .series { fill: none; stroke-width: 1.6; }
.s-estimated { stroke: var(--accent); color: var(--accent); }
.s-reported { stroke: #0f8a8a; color: #0f8a8a; }
.s-cache { stroke: #8a8f0f; color: #8a8f0f; }
.s-threshold { stroke: var(--bad); stroke-dasharray: 6 3; color: var(--bad); }
.s-retain { stroke: var(--warn); stroke-dasharray: 2 3; color: var(--warn); }
.mark { stroke-width: 2; }
.m-compaction { stroke: var(--sum); color: var(--sum); }
.m-prune { stroke: var(--prune); stroke-dasharray: 3 2; color: var(--prune); }
.cursor { stroke: var(--fg); stroke-width: 1; stroke-dasharray: 1 2; }
.legend { display: flex; gap: 14px; font-size: 12px; color: var(--muted); padding: 2px 0 4px 66px; flex-wrap: wrap; }
.legend button.key { font: inherit; background: none; border: 1px solid transparent; border-radius: 4px; padding: 1px 4px; cursor: pointer; }
.legend button.key[aria-pressed="false"] { opacity: .45; text-decoration: line-through; }
.legend button.key:focus-visible { outline: 2px solid var(--accent); }
.legend .mark-key { color: var(--muted); }
.legend .key::before { content: ""; display: inline-block; width: 14px; height: 0; border-top: 2px solid currentColor; margin-right: 5px; vertical-align: middle; }
.body { display: grid; grid-template-columns: 300px 1fr; flex: 1; min-height: 0; }
nav.timeline { border-right: 1px solid var(--line); background: var(--panel); display: flex; flex-direction: column; }
h2 { font-size: 15px; margin: 8px 0; }
h3 { font-size: 13px; margin: 10px 0 4px; color: var(--muted); font-weight: 600; }
nav.timeline h2 { padding: 0 12px; }
.vlist { position: relative; overflow-y: auto; height: 60vh; min-height: 200px; border: 1px solid var(--line); background: var(--panel); outline: none; }
nav.timeline .vlist { height: calc(100vh - 330px); border-width: 1px 0 0; }
.vlist:focus-visible { box-shadow: 0 0 0 2px var(--accent) inset; }
.vlist-spacer { position: relative; }
.vrow { position: absolute; left: 0; right: 0; top: 0; display: flex; gap: 8px; align-items: center; padding: 0 8px; white-space: nowrap; overflow: hidden; cursor: default; border-bottom: 1px solid #f0f2f5; }
.vrow[aria-selected="true"] { background: #dfe8fb; }
.vrow .seq { color: var(--muted); font-variant-numeric: tabular-nums; min-width: 44px; font-size: 12px; }
.vrow .text { overflow: hidden; text-overflow: ellipsis; flex: 1; }
.vrow .role { font-weight: 600; min-width: 64px; font-size: 12px; }
.vrow .tag { font-size: 11px; color: var(--muted); border: 1px solid var(--line); border-radius: 8px; padding: 0 6px; }
.vrow.origin { padding-left: 34px; background: #faf6fd; }
.vrow.replacement .role { color: var(--sum); }
.vrow.on-surface { border-left: 3px solid var(--accent); }
.vrow.shadowed .text { color: var(--muted); }
.toggle { border: 0; background: none; cursor: pointer; font-size: 13px; padding: 0 2px; color: var(--sum); }
.t-turn { font-weight: 600; background: #f3f5f8; }
.t-compaction .label { color: var(--sum); font-weight: 600; }
.t-prune .label { color: var(--prune); }
.check.verified { color: var(--ok); font-weight: 700; }
.check.failed { color: var(--bad); font-weight: 700; }
.check.reconstructed { color: var(--warn); }
.check.off-surface { color: var(--warn); font-weight: 700; }
.vrow .tag.off-surface { color: var(--warn); border-color: var(--warn); }
.vrow .tokens { color: var(--muted); font-size: 12px; margin-left: auto; }
.panel { padding: 8px 16px 16px; min-width: 0; }
.panel-head { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
.badge { display: inline-block; border-radius: 10px; padding: 2px 10px; font-size: 12px; font-weight: 600; border: 1px solid; }
.badge.verified, .badge.outcome-compacted { color: var(--ok); background: #e8f5ec; }
.badge.failed, .badge.outcome-failed, .badge.outcome-open { color: var(--bad); background: #fbeaea; }
.badge.reconstructed, .badge.outcome-stale, .badge.off-surface { color: var(--warn); background: #fdf3e1; }
.off-surface-note p { margin: 0; color: var(--warn); }
.request-body { border: 1px solid var(--line); background: var(--panel); padding: 8px; height: 36vh; overflow: auto; }
.invisible { white-space: nowrap; font-family: "DejaVu Sans Mono", monospace; font-size: 0.85em; color: #fff; background: #b0207a; border-radius: 3px; padding: 0 2px; margin: 0 1px; }
.invisible-note { margin: 2px 0 6px; color: #b0207a; font-weight: 600; font-size: 12px; }
.vrow .tag.invisible-count { color: #b0207a; border-color: #b0207a; }
.error { color: var(--bad); white-space: pre-wrap; overflow-wrap: anywhere; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 3px 14px; margin: 8px 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
dl.facts code.command { user-select: all; font-family: ui-monospace, monospace; background: rgba(127,127,127,0.12); padding: 1px 4px; border-radius: 3px; }
dl.facts .note { color: var(--muted); }
.summary-check.verified { color: var(--ok); }
.summary-check.failed { color: var(--bad); }
.diff ul { margin: 0; padding-left: 18px; }
.diff .compacted { color: var(--sum); }
.diff .pruned { color: var(--prune); }
.columns { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.column { min-width: 0; }
.column .vlist { height: 36vh; }
.node-detail { margin-top: 10px; border: 1px solid var(--line); background: var(--panel); padding: 8px; max-height: 40vh; overflow: auto; }
.detail-head { color: var(--muted); font-size: 12px; margin-bottom: 4px; }
.detail-text { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; font-family: "DejaVu Sans Mono", "WenQuanYi Micro Hei Mono", monospace; font-size: 12px; }
.tune { padding: 8px 16px 24px; border-top: 1px solid var(--line); background: var(--panel); }
.tune-table { border-collapse: collapse; font-size: 12px; }
.tune-table th, .tune-table td { border: 1px solid var(--line); padding: 3px 8px; text-align: right; }
.tune-table tr.infeasible td { color: var(--muted); text-decoration: line-through; }
.recommendation { font-weight: 600; color: var(--ok); }
`;
