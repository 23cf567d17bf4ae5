// The main menu (templates/base.html): one row on a laptop, a "Menu" that opens on a tablet or phone.
// Without this script the menu is simply always open; with it, a section's drop-down closes when another opens,
// on a click elsewhere and on Escape.
(function () {
  "use strict";
  var toggle = document.querySelector("nav.mainnav details.navtoggle");
  if (!toggle) { return; }
  var narrow = window.matchMedia("(max-width: 900px)");
  function fit() { toggle.open = !narrow.matches; }
  fit();
  if (narrow.addEventListener) { narrow.addEventListener("change", fit); }
  var groups = Array.prototype.slice.call(toggle.querySelectorAll("details.navgroup"));
  groups.forEach(function (group) {
    group.addEventListener("toggle", function () {
      if (!group.open) { return; }
      groups.forEach(function (other) { if (other !== group) { other.open = false; } });
    });
  });
  document.addEventListener("click", function (event) {
    groups.forEach(function (group) { if (!group.contains(event.target)) { group.open = false; } });
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") { return; }
    groups.forEach(function (group) {
      if (group.open) { group.open = false; group.querySelector("summary").focus(); }
    });
  });
})();
