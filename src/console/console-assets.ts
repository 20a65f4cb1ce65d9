/**
 * The console's stylesheet, served by docket itself at /console/assets/console.css. Status is
 * always carried by a word or a symbol too; colour only repeats it.
 */
export const CONSOLE_CSS = `
:root { color-scheme: light dark; --fg: #1b1b1b; --bg: #fdfdfc; --muted: #5c5c5c; --line: #c8c8c8;
  --ok: #0a6b2c; --bad: #a4161a; --warn: #7a4b00; --card: #fff; --focus: #1a5fb4; }
@media (prefers-color-scheme: dark) { :root { --fg: #ececec; --bg: #161616; --muted: #b0b0b0;
  --line: #444; --ok: #6fdc8c; --bad: #ff8a8a; --warn: #f5c16c; --card: #1f1f1f; --focus: #8ab4f8; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .5rem 1rem; border-bottom: 1px solid var(--line); }
header nav a { margin-right: .75rem; }
.sign-out { margin-left: auto; display: flex; gap: .5rem; align-items: center; }
main { padding: 1rem; max-width: 60rem; margin: 0 auto; }
a { color: var(--focus); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: 1rem; background: var(--bg); }
pre, code { font: 14px/1.4 ui-monospace, monospace; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: rgba(127,127,127,.1); padding: .5rem; margin: .25rem 0; max-height: 24rem; overflow: auto; }
code { overflow-wrap: anywhere; }
.card { background: var(--card); border: 1px solid var(--line); border-left: 6px solid var(--warn); padding: .75rem 1rem; margin: 0 0 1rem; border-radius: 4px; }
.card h2 { margin: 0 0 .5rem; font-size: 1.2rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .5rem 0; }
dt { font-weight: 600; } dd { margin: 0; overflow-wrap: anywhere; }
@media (max-width: 32rem) { dl { grid-template-columns: 1fr; } dd { margin-bottom: .35rem; } }
.tag { display: inline-block; border: 1px solid currentColor; border-radius: 3px; padding: 0 .35rem; font-size: .85rem; }
.untrusted { border: 2px solid var(--warn); padding: .5rem; } .tainted { color: var(--warn); font-weight: 600; }
.labels { list-style: none; padding: 0; margin: 0; }
.diff .add { color: var(--ok); } .diff .del { color: var(--bad); } .diff .hunk { color: var(--muted); }
.decide { display: flex; flex-wrap: wrap; gap: 1rem; margin-top: .75rem; }
.decide form { flex: 1 1 16rem; }
.deny label, .sign-in label { display: block; font-weight: 600; }
textarea, input[type=password] { width: 100%; font: inherit; padding: .4rem; }
button { font: inherit; padding: .45rem .9rem; margin: .25rem .25rem .25rem 0; cursor: pointer; min-height: 2.5rem; }
.covers, .may-not, .note, small { color: var(--muted); }
.badge { padding: .5rem .75rem; border: 2px solid; border-radius: 4px; margin: .75rem 0; }
.badge.ok { color: var(--ok); } .badge.broken { color: var(--bad); } .badge.pending { color: inherit; }
.problem { color: var(--bad); } .flash { border: 2px solid var(--focus); padding: .5rem; }
.scroll { overflow-x: auto; } table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.events { padding-left: 1.25rem; } .ev { margin: .35rem 0; } .seq { color: var(--muted); font-size: .85rem; }
.conversation { list-style: none; padding: 0; } .msg { border-left: 3px solid var(--line); padding: .25rem .75rem; margin: .5rem 0; }
.call { border-top: 1px solid var(--line); margin-top: 1rem; }
[data-approval]:focus, [data-item]:focus { outline: 3px solid var(--focus); outline-offset: 2px; box-shadow: 0 0 0 6px rgba(26,95,180,.2); }
.confirm { border: 2px solid var(--focus); padding: .5rem; margin: .5rem 0; }
.keys { color: var(--muted); font-size: .85rem; margin: 0; padding: .25rem 1rem; }
.rows { list-style: none; padding: 0; } .row { border: 1px solid var(--line); border-left: 6px solid var(--line); padding: .35rem .75rem; margin: 0 0 .5rem; border-radius: 4px; }
.row.status-approved { border-left-color: var(--ok); } .row.status-denied { border-left-color: var(--bad); }
.row .line { margin: .1rem 0; } .row pre { max-height: 6rem; }
.filters { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: 0 1rem; align-items: end; }
.filters p { margin: .25rem 0; } .filters label { display: block; font-weight: 600; font-size: .9rem; }
.filters input, .filters select { width: 100%; font: inherit; padding: .3rem; } .filters .search { grid-column: 1 / -1; }
.arrived { animation: arrive 1.5s; } @keyframes arrive { from { background: rgba(26,95,180,.25); } }
@media (prefers-reduced-motion: reduce) { .arrived { animation: none; } }
`;

/**
 * The console's script, served at /console/assets/console.js: the inbox follows the event
 * stream (`add` puts a new request on top, `remove` takes a decided one away), and reconnects
 * with the ids it shows when the stream drops. Without it the console still works, by reload.
 */
export const CONSOLE_JS = `"use strict";
(function () {
  var inbox = document.getElementById("inbox");
  if (!inbox || !inbox.dataset.live || !window.EventSource) return;
  var total = document.getElementById("pending-total");
  var empty = document.getElementById("empty");
  function ids() {
    return Array.prototype.map.call(inbox.querySelectorAll("[data-approval]"), function (el) { return el.id; });
  }
  function changed(count) {
    if (total && typeof count === "number") total.textContent = String(count);
    if (empty) empty.hidden = inbox.querySelector("[data-approval]") !== null;
  }
  function connect() {
    var source = new EventSource(inbox.dataset.live + "?have=" + encodeURIComponent(ids().join(",")));
    source.addEventListener("add", function (event) {
      var data = JSON.parse(event.data);
      if (document.getElementById(data.id)) return;
      var template = document.createElement("template");
      template.innerHTML = data.html;
      var card = template.content.firstElementChild;
      if (!card) return;
      card.classList.add("arrived");
      inbox.insertBefore(card, inbox.firstChild);
      changed(data.total);
    });
    source.addEventListener("remove", function (event) {
      var data = JSON.parse(event.data);
      var card = document.getElementById(data.id);
      if (!card) return changed(data.total);
      if (card.contains(document.activeElement)) inbox.focus();
      card.remove();
      changed(data.total);
    });
    source.addEventListener("signed-out", function () { source.close(); location.reload(); });
    source.onerror = function () { source.close(); setTimeout(connect, 2000); };
  }
  inbox.tabIndex = -1;
  connect();
})();
`;
