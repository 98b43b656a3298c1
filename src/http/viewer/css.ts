/** The viewer's one stylesheet, built into the binary and served from /ui/app.css (no CDN, DESIGN.md 13). */
export const CSS = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #ffffff; --muted: #57606a; --line: #d0d7de; --card: #f6f8fa; --accent: #0b5cad; --mark: #fff3a3; --user: #e8f1fb; --danger: #b42318; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9aa4af; --line: #30363d; --card: #161b22; --accent: #58a6ff; --mark: #5c4b00; --user: #132a44; --danger: #ff7b72; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; gap: .25rem 1rem; align-items: center; padding: .5rem 1rem; border-bottom: 1px solid var(--line); background: var(--card); }
header .brand { font-weight: 700; margin-right: .5rem; }
header nav { display: flex; flex-wrap: wrap; gap: .25rem .9rem; flex: 1; }
header form { margin: 0; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, summary:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
h1 { font-size: 1.4rem; margin: .5rem 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: anywhere; }
td.num, th.num { text-align: right; white-space: nowrap; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: .25rem 0; font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
.muted { color: var(--muted); }
.turn { border: 1px solid var(--line); border-radius: 8px; padding: .5rem .75rem; margin: .5rem 0; background: var(--bg); }
.turn.user { background: var(--user); margin-left: 10%; }
.turn.assistant { margin-right: 10%; }
.turn.sub { margin-left: 2rem; border-style: dashed; }
.turn .who { font-size: 12px; color: var(--muted); display: flex; gap: .75rem; flex-wrap: wrap; }
details > summary { cursor: pointer; color: var(--muted); overflow-wrap: anywhere; }
details.noise { margin: .5rem 0; padding-left: .5rem; border-left: 3px solid var(--line); }
details.noise > summary { font-size: 13px; }
mark { background: var(--mark); color: inherit; }
form.inline { display: inline; }
label { display: inline-block; max-width: calc(100% - .75rem); margin: .25rem .75rem .25rem 0; }
input[type=text], input[type=password], input[type=search], select { font: inherit; padding: .3rem .4rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); max-width: 100%; }
button { font: inherit; padding: .3rem .8rem; border: 1px solid var(--line); border-radius: 6px; background: var(--card); color: var(--fg); cursor: pointer; }
button.danger { border-color: var(--danger); color: var(--danger); }
.hit { border-bottom: 1px solid var(--line); padding: .5rem 0; }
.pager { display: flex; gap: 1rem; margin: 1rem 0; }
.error { border: 1px solid var(--danger); color: var(--danger); padding: .5rem .75rem; border-radius: 6px; }
.thumb { max-width: 160px; max-height: 120px; display: block; }
svg text { fill: var(--fg); font-size: 11px; }
svg rect.bar { fill: var(--accent); }
svg line.axis { stroke: var(--line); }
figure.chart { margin: .5rem 0 1.25rem; overflow-x: auto; }
figure.chart figcaption { font-weight: 600; margin-bottom: .25rem; }
svg.chart { max-width: 100%; height: auto; }
table.checks th, table.checks td.status { white-space: nowrap; overflow-wrap: normal; }
.status-warn, .status-fail { font-weight: 700; color: var(--danger); }
footer { text-align: center; padding: 1rem; }
@media (max-width: 600px) { .turn.user, .turn.assistant { margin-left: 0; margin-right: 0; } main { padding: .5rem; } header nav { flex-basis: 100%; } header { padding: .5rem; } }
`;
