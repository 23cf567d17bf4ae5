// Live progress of report jobs: every element [data-progress-url] is polled until its job is done.
// No inline script (the Content-Security-Policy forbids it); the page works without it (reload to see).
(function () {
  "use strict";
  function poll(box) {
    var url = box.getAttribute("data-progress-url");
    var bar = box.querySelector("progress");
    var stage = box.querySelector(".stage");
    var status = document.querySelector("[data-status-for='" + box.getAttribute("data-run") + "']");
    fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (state) {
        if (!state) { return; }
        if (bar) { bar.value = state.percent; bar.textContent = state.percent + "%"; }
        if (stage) { stage.textContent = state.error ? state.error : state.stage; }
        if (status) { status.textContent = state.status_label; }
        if (state.active) {
          window.setTimeout(function () { poll(box); }, 1000);
        } else if (box.hasAttribute("data-reload-when-done")) {
          window.location.reload();
        }
      })
      .catch(function () { window.setTimeout(function () { poll(box); }, 5000); });
  }
  document.querySelectorAll("[data-progress-url]").forEach(function (box) {
    if (box.getAttribute("data-active") === "true") { poll(box); }
  });
})();
