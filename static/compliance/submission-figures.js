// The Rules Submission choice page: as a choice is typed or picked, the exact house advantage of each wager it
// sets is shown beside its field (from the server's exact engine; nothing is saved until the form is).
// No inline script (the Content-Security-Policy forbids it); without it the figures show once the form is saved.
(function () {
  "use strict";
  var form = document.querySelector("form[data-figures-url]");
  if (!form) { return; }
  var url = form.getAttribute("data-figures-url");
  var errorBox = form.querySelector("[data-figures-error]");
  var timer = null;

  function besideOf(input) {
    var field = input.closest(".field");
    if (!field) { return null; }
    var out = field.querySelector("output[data-edge]");
    if (!out) {
      out = document.createElement("output");
      out.setAttribute("data-edge", "");
      out.className = "muted";
      var help = field.querySelector(".help");
      field.insertBefore(out, help);
    }
    return out;
  }

  function refresh() {
    var query = new URLSearchParams();
    new FormData(form).forEach(function (value, name) {
      if (name !== "csrfmiddlewaretoken") { query.append(name, value); }
    });
    fetch(url + "?" + query.toString(), { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (answer) {
        if (!answer) { return; }
        if (errorBox) { errorBox.textContent = answer.error; }
        form.querySelectorAll("input[type=text], input:not([type])").forEach(function (input) {
          var wager = answer.wagers[input.name];
          var out = besideOf(input);
          if (out) { out.textContent = wager ? "House advantage at these odds: " + wager.house_advantage : ""; }
        });
      })
      .catch(function () { /* the figures come back with the saved form */ });
  }

  form.addEventListener("input", function () {
    window.clearTimeout(timer);
    timer = window.setTimeout(refresh, 300);
  });
  form.addEventListener("change", refresh);
  refresh();
}());
