// Developer keys: small enhancements only. The page works without this file:
// the copy button stays hidden, and "Revoke" leads to a confirmation page.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  // Copy to clipboard, with the result announced in a live region.
  document.querySelectorAll("button.dk-copy[data-copy]").forEach(function (button) {
    var field = document.getElementById(button.dataset.copy);
    var status = button.parentElement.querySelector(".dk-copy-status");
    if (!field) { return; }
    button.hidden = false;
    button.addEventListener("click", function () {
      field.focus();
      field.select();
      var done = function (ok) {
        if (status) { status.textContent = ok ? "Copied to the clipboard." : "Selected: press Ctrl+C (or ⌘C) to copy."; }
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(field.value).then(function () { done(true); }, function () { done(false); });
      } else {
        done(false);
      }
    });
  });

  // The new key is shown once: when the page is left, take it out, so that
  // a back-forward cache that kept the page does not show it again; a page
  // restored from that cache is fetched again (the server then says the key
  // was shown once). Without this script, Cache-Control: no-store keeps
  // the page out of caches.
  var created = document.querySelector(".dk-created");
  if (created) {
    window.addEventListener("pagehide", function () {
      var field = document.getElementById("dk-secret");
      if (field) { field.value = ""; }
      created.remove();
    });
    window.addEventListener("pageshow", function (event) {
      if (event.persisted) { window.location.reload(); }
    });
  }

  // Revoke: confirm in a dialog, then post the same form the confirmation
  // page would; cancelling changes nothing.
  document.querySelectorAll("a.dk-revoke").forEach(function (link) {
    link.addEventListener("click", function (event) {
      event.preventDefault();
      // data-name shows hidden characters as [U+XXXX] (set by the server).
      var question = "Revoke the key \u201c" + link.dataset.name + "\u201d (" + link.dataset.hint + ")?\n\n" +
        "Programs using it are refused (401) from now on. This cannot be undone.";
      if (!window.confirm(question)) { return; }
      var form = document.createElement("form");
      form.method = "post";
      form.action = link.href;
      document.body.appendChild(form);
      form.submit();
    });
  });

  // A custom number of days selects the "Custom" choice.
  var custom = document.getElementById("dk-custom-days");
  var customRadio = document.getElementById("dk-expiry-custom");
  if (custom && customRadio) {
    custom.addEventListener("input", function () { customRadio.checked = true; });
  }
});
