// Small behaviours every page may use, without inline scripts: [data-print] prints.
document.addEventListener("click", function (event) {
  var target = event.target.closest("[data-print]");
  if (target) {
    event.preventDefault();
    window.print();
  }
});

// Polling regions (data-poll) wait while someone is typing in them: a refresh must never
// swallow a half-written dispute reason or correction. A poll that would is cancelled
// here (htmx's trigger filters evaluate code, which the Content-Security-Policy forbids).
function cyaQuiet(region) {
  var active = document.activeElement;
  if (active && region.contains(active) && active.matches("input, textarea, select")) {
    return false;
  }
  var fields = region.querySelectorAll("input[type=text], textarea");
  for (var i = 0; i < fields.length; i++) {
    if (fields[i].value !== fields[i].defaultValue) {
      return false;
    }
  }
  return !region.querySelector("details[open]");
}

document.addEventListener("htmx:confirm", function (event) {
  var region = event.detail.elt;  // a poll is the one request no event triggered
  if (region.matches("[data-poll]") && !event.detail.triggeringEvent && !cyaQuiet(region)) {
    event.preventDefault();
  }
});

// [data-copy="#field"] copies that field's text (a token shown once) and says so on the
// button ([data-copied]); without JavaScript the field is still there to select and copy.
document.addEventListener("click", function (event) {
  var button = event.target.closest("[data-copy]");
  var field = button && document.querySelector(button.getAttribute("data-copy"));
  if (!field) {
    return;
  }
  field.select();
  var done = function () {
    button.textContent = button.getAttribute("data-copied") || button.textContent;
  };
  if (navigator.clipboard) {
    navigator.clipboard.writeText(field.value).then(done, function () {});
  } else if (document.execCommand("copy")) {
    done();
  }
});
