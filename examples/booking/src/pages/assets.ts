/** The pages' one stylesheet, served at `/assets/pages.css` (the CSP allows no inline style). */
export const PAGES_CSS = `:root { color-scheme: light dark; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --accent: #0b5cad; --bad: #a40e26; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); }
header.top { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; padding: .6rem 1.2rem; border-bottom: 1px solid var(--line); }
header.top .who { margin: 0; font-weight: 600; }
header.top nav { display: flex; gap: .9rem; flex: 1; }
header.top form { margin: 0; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1.2rem 3rem; }
a { color: var(--accent); }
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
input[type=text], input[type=email], input[type=password], input[type=number], select { font: inherit; padding: .3rem .4rem; }
button { font: inherit; padding: .35rem .9rem; cursor: pointer; }
button[disabled] { cursor: not-allowed; }
.flash { border-left: 4px solid var(--accent); padding: .4rem .8rem; }
.error { border-left: 4px solid var(--bad); padding: .4rem .8rem; }
.empty, .note, .changed { color: var(--muted); }
pre[data-minted-token] { padding: .6rem; border: 1px dashed var(--accent); overflow-wrap: anywhere; white-space: pre-wrap; }
form.filters label { display: inline-block; margin-right: .8rem; }
`;
