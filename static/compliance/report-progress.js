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
          // Every 2 s while it moves; slower while it waits for a worker (queued), never below every 10 s.
          var wait = state.status === "queued" ? Math.min(10000, (box._wait || 2000) * 1.5) : 2000;
          box._wait = wait;
          window.setTimeout(function () { poll(box); }, wait);
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
