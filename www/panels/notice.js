// A dismissable notice about the link that was opened (errors.js is for the page's own failures).

export function createNotice(box) {
  box.lastChild.addEventListener("click", () => (box.hidden = true));
  return (text) => {
    box.firstChild.textContent = text;
    box.hidden = !text;
  };
}
