// Live table board: re-fetch the rows every N seconds (no libraries, no CDN). If a fetch fails
// the last rows stay on screen and the stamp says so; the page also has a <noscript> meta refresh.
(function () {
  "use strict";
  var board = document.getElementById("board");
  if (!board) { return; }
  var url = board.getAttribute("data-refresh-url");
  var seconds = parseInt(board.getAttribute("data-refresh-seconds") || "30", 10);
  function refresh() {
    fetch(url, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.text();
      })
      .then(function (html) { board.innerHTML = html; })
      .catch(function () {
        var stamp = board.querySelector(".board-stamp");
        if (stamp) { stamp.textContent = "Could not refresh; showing the last figures. Retrying."; }
      });
  }
  window.setInterval(refresh, seconds * 1000);
})();
