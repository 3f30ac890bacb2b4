// The lobby's new-table form: only the seats the table has are shown.
// Without this script every seat is shown, and the seats past the table's size are ignored.
(function () {
  "use strict";
  var size = document.getElementById("id_seats");
  if (!size) return;
  function show() {
    var seats = parseInt(size.value, 10);
    document.querySelectorAll("[data-opponent-seat]").forEach(function (field) {
      field.hidden = parseInt(field.getAttribute("data-opponent-seat"), 10) >= seats;
    });
  }
  size.addEventListener("change", show);
  show();
})();
