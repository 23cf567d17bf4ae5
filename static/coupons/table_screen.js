// The dealer's table screen (coupons/table_screen.html). A keyboard-wedge scanner types the coupon's serial and
// Enter into whatever field has the focus. The flow a dealer expects:
//   - the chips wagered with a coupon are the table's usual wager: entered once, kept from coupon to coupon
//     (the server keeps them after an accepted coupon and after a refused one);
//   - the serial field has the focus, so every scan lands there and its Enter checks and redeems at once;
//   - a scan's Enter with no chips entered yet is not sent (it could only be refused): the serial stays, the
//     focus moves to the chips with a word to the dealer, and their Enter sends both;
//   - a scan that starts while the chips field has the focus (the dealer just typed the chips) goes to the
//     serial field, not into the amount.
// No libraries, no inline script (the Content-Security-Policy allows this file only).
(function () {
  "use strict";
  var form = document.querySelector(".table-screen form.scan-form");
  if (!form) { return; }
  var serial = form.querySelector("[name=serial]");
  var chips = form.querySelector("[name=chips]");
  var prompt = document.getElementById("scan-prompt");
  if (!serial || !chips) { return; }

  function say(words) {
    if (prompt) { prompt.textContent = words; prompt.hidden = !words; }
  }

  function chipsEntered() {
    return chips.value.trim() !== "" && chips.validity.valid && Number(chips.value) > 0;
  }

  form.addEventListener("submit", function (event) {
    if (serial.value.trim() === "") {
      event.preventDefault();
      say(chipsEntered() ? "Scan the coupon." : "Enter the chips wagered with each coupon, then scan the coupon.");
      serial.focus();
      return;
    }
    if (!chipsEntered()) {
      event.preventDefault();
      say("Scanned " + serial.value.trim() + ": enter the chips wagered with it, then press Enter.");
      chips.focus();
      chips.select();
    }
  });

  // A scanner's letters (the serial's prefix) typed into the amount: they belong to the serial.
  chips.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.key.length !== 1) { return; }
    if (!/[A-Za-z]/.test(event.key)) { return; }  // "e" too: no dealer types an exponent
    event.preventDefault();
    serial.value = event.key;
    serial.focus();
    say("");
  });

  chips.addEventListener("input", function () {
    if (chipsEntered() && serial.value.trim() !== "") { say("Press Enter to check and redeem " + serial.value.trim() + "."); }
  });
})();
