/**
 * The console's keyboard, served after the inbox script in /console/assets/console.js: `j`/`k`
 * (or the arrows) move between requests, `a` approves the focused one and `d` denies it, each
 * only after a confirmation that takes the focus (Enter confirms, Escape cancels), `/` goes to
 * the search. Keys typed into a field stay the field's. Nothing is decided by one key press,
 * and every action is also a button a mouse or a screen reader reaches.
 */
export const CONSOLE_KEYS_JS = `
(function () {
  var status = document.getElementById("keys-status");
  function say(text) { if (status) status.textContent = text; }
  function items() {
    return Array.prototype.slice.call(document.querySelectorAll("main [data-approval], main [data-item]"));
  }
  function current() {
    var active = document.activeElement;
    return active && active.closest ? active.closest("[data-approval], [data-item]") : null;
  }
  function move(step) {
    var list = items();
    if (list.length === 0) return say("Nothing to move to.");
    var at = list.indexOf(current());
    var next = list[at === -1 ? (step > 0 ? 0 : list.length - 1) : Math.min(list.length - 1, Math.max(0, at + step))];
    if (!next.hasAttribute("tabindex")) next.tabIndex = -1;
    next.focus();
    next.scrollIntoView({ block: "nearest" });
  }
  function dismiss(card) {
    var open = card.querySelector(".confirm");
    if (open) open.remove();
  }
  function confirmIn(card, words, yes, submit) {
    dismiss(card);
    var box = document.createElement("div");
    box.className = "confirm";
    box.setAttribute("role", "alertdialog");
    box.setAttribute("aria-label", words);
    var text = document.createElement("p");
    text.textContent = words + " Enter confirms, Escape cancels.";
    var ok = document.createElement("button");
    ok.type = "button";
    ok.textContent = yes;
    var no = document.createElement("button");
    no.type = "button";
    no.textContent = "Cancel";
    ok.addEventListener("click", function () { ok.disabled = true; submit(); });
    no.addEventListener("click", function () { box.remove(); card.focus(); say("Cancelled."); });
    box.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { event.preventDefault(); event.stopPropagation(); no.click(); }
    });
    box.appendChild(text);
    box.appendChild(ok);
    box.appendChild(no);
    var decide = card.querySelector(".decide");
    card.insertBefore(box, decide);
    ok.focus();
  }
  function toolOf(card) { return card.getAttribute("data-tool") || "this call"; }
  function approve(card) {
    var button = card.querySelector('.approve button[value="approve"]');
    if (!button) return say("You cannot decide this request.");
    confirmIn(card, "Approve " + toolOf(card) + " once?", "Yes, approve once", function () {
      button.form.requestSubmit(button);
    });
  }
  function deny(card) {
    var reason = card.querySelector(".deny textarea");
    var button = card.querySelector('.deny button[value="deny"]');
    if (!reason || !button) return say("You cannot decide this request.");
    if (reason.value.trim() === "") {
      reason.focus();
      return say("Type the reason for denying, then press Ctrl+Enter.");
    }
    confirmIn(card, "Deny " + toolOf(card) + " with this reason?", "Yes, deny", function () {
      button.form.requestSubmit(button);
    });
  }
  function typing(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }
  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.altKey || event.metaKey) return;
    var target = event.target;
    if (typing(target)) {
      if (event.key === "Enter" && event.ctrlKey && target.closest && target.closest(".deny")) {
        event.preventDefault();
        var owner = target.closest("[data-approval]");
        if (owner) deny(owner);
      } else if (event.key === "Escape") {
        target.blur();
        var back = target.closest && target.closest("[data-approval], [data-item]");
        if (back) back.focus();
      }
      return;
    }
    if (event.ctrlKey) return;
    var card = current();
    switch (event.key) {
      case "j": case "ArrowDown": event.preventDefault(); return move(1);
      case "k": case "ArrowUp": event.preventDefault(); return move(-1);
      case "a": if (card && card.hasAttribute("data-approval")) { event.preventDefault(); approve(card); } return;
      case "d": if (card && card.hasAttribute("data-approval")) { event.preventDefault(); deny(card); } return;
      case "/": {
        event.preventDefault();
        var search = document.querySelector("[data-search]");
        if (search) { search.focus(); search.select(); } else location.href = "/console/decided#search";
        return;
      }
      case "Escape": if (card) dismiss(card); return;
    }
  });
  if (location.hash === "#search") {
    var field = document.querySelector("[data-search]");
    if (field) field.focus();
  }
})();
`;
