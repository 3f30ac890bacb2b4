// [data-generate-secret="#field"] fills that field with a strong random secret, made here
// in the browser (32 random bytes, base64url): the owner copies it to their bot's server
// before saving; the platform never shows it again. The buttons stay hidden without
// JavaScript, where the owner types a secret of their own.
function cyaSecret() {
  var bytes = new Uint8Array(32);
  window.crypto.getRandomValues(bytes);
  var text = "";
  for (var i = 0; i < bytes.length; i++) {
    text += String.fromCharCode(bytes[i]);
  }
  return window.btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

document.querySelectorAll("[data-secret-tools]").forEach(function (tools) {
  tools.hidden = false;
});

document.addEventListener("click", function (event) {
  var button = event.target.closest("[data-generate-secret]");
  var field = button && document.querySelector(button.getAttribute("data-generate-secret"));
  if (!field) {
    return;
  }
  field.value = cyaSecret();
  field.dispatchEvent(new Event("input", { bubbles: true }));
  field.focus();
  field.select();
});
