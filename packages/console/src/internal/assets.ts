/** The console's one stylesheet, served at `<base>/assets/console.css` (the CSP allows no inline style). */
export const CONSOLE_CSS = `:root { color-scheme: light dark; --fg: #1b1f24; --bg: #ffffff; --muted: #57606a; --line: #d0d7de; --accent: #0b5cad; --bad: #a40e26; --bad-bg: #fff0f0; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d; --accent: #4493f8; --bad: #ff7b72; --bad-bg: #2d1214; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: .5rem; background: var(--bg); padding: .3rem .6rem; }
header.top { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; padding: .6rem 1.2rem; border-bottom: 1px solid var(--line); }
header.top .brand { margin: 0; font-weight: 700; display: flex; gap: .5rem; align-items: center; }
header.top .who { margin: 0; font-weight: 600; }
header.top nav { display: flex; gap: .9rem; flex: 1; }
header.top nav a[aria-current=page] { font-weight: 700; text-decoration: none; border-bottom: 2px solid var(--accent); }
header.top form { margin: 0; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1.2rem 3rem; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, summary:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
table.list { border-collapse: collapse; width: 100%; margin: 1rem 0; }
table.list th, table.list td { border-bottom: 1px solid var(--line); padding: .35rem .5rem; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dl.facts dt, .content dt { font-weight: 600; }
.content { border: 1px solid var(--line); border-radius: 6px; padding: .6rem 1rem; overflow-wrap: anywhere; white-space: pre-wrap; }
.content dd { margin-left: 1.2rem; }
.decide { display: flex; gap: 2rem; flex-wrap: wrap; margin-top: 1.2rem; }
form { margin: .6rem 0; }
form label { display: block; margin: .4rem 0; }
fieldset label { display: inline-block; margin-right: 1rem; }
input[type=text], input[type=email], input[type=password], input[type=number], select { font: inherit; padding: .3rem .4rem; color: inherit; background: var(--bg); border: 1px solid var(--line); }
select { max-width: 100%; }
button { font: inherit; padding: .35rem .9rem; cursor: pointer; }
button.danger { background: var(--bad); color: #fff; border: 1px solid var(--bad); }
button[disabled] { cursor: not-allowed; }
.flash { border-left: 4px solid var(--accent); padding: .4rem .8rem; }
.error { border-left: 4px solid var(--bad); padding: .4rem .8rem; }
.warning { border-left: 4px solid var(--bad); padding: .4rem .8rem; background: var(--bad-bg); }
.empty, .note, .changed, .ago { color: var(--muted); }
pre[data-minted-token] { padding: .6rem; border: 1px dashed var(--accent); overflow-wrap: anywhere; white-space: pre-wrap; }
form.filters label { display: inline-block; margin-right: .8rem; }
.lead { font-size: 1.15rem; margin: .4rem 0 1rem; }
.status { border-left: 4px solid var(--line); padding: .4rem .8rem; }
.status.done { border-left-color: var(--accent); }
dl.card { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0; }
dl.card dt { font-weight: 600; }
dl.card dd { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
ol.items { margin: 0; padding-left: 1.2rem; }
.content { white-space: normal; }
.content.destructive { border-color: var(--bad); border-width: 2px; }
tr.destructive td:first-child a { color: var(--bad); font-weight: 600; }
blockquote.third-party { margin: 0; padding: .3rem .8rem; border-left: 3px dashed var(--muted); }
blockquote.third-party .text { white-space: pre-wrap; }
details { margin: 1rem 0; }
pre.raw { padding: .6rem; border: 1px solid var(--line); overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
`;
