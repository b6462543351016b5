// A dismissable notice about the link that was opened (errors.js is for the page's own failures),
// maybe with one action (a button after the text).

export function createNotice(box) {
  box.lastChild.addEventListener("click", () => (box.hidden = true));
  const action = document.createElement("button");
  action.type = "button";
  action.className = "notice-action";
  return (text, act = null) => {
    box.firstChild.textContent = text;
    if (act) {
      action.textContent = act.label;
      action.onclick = () => {
        box.hidden = true;
        act.run();
      };
      box.firstChild.after(action);
    } else action.remove();
    box.hidden = !text;
  };
}
