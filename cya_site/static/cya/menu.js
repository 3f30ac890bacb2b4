// The site menu folds below 600 px behind a "Menu" button. Loaded in <head>, not
// deferred: the class below is set before the header is drawn, so a phone never sees the
// whole menu flash open. Without JavaScript the menu simply stays unfolded.
document.documentElement.classList.add("js");
document.addEventListener("click", function (event) {
  var button = event.target.closest("[data-menu-toggle]");
  if (!button) {
    return;
  }
  var menu = document.getElementById(button.getAttribute("aria-controls"));
  var open = button.getAttribute("aria-expanded") !== "true";
  button.setAttribute("aria-expanded", String(open));
  menu.classList.toggle("open", open);
});
