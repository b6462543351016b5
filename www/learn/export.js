// SVG and PNG export of a drawn chart or diagram, for docs. The page styles
// its SVGs with CSS custom properties; an exported file must stand alone, so
// each node's computed paint and font are written onto the copy as
// presentation attributes (a style attribute would break the page's CSP),
// and a background in the current theme goes behind it.

const PROPS = ["fill", "fill-opacity", "stroke", "stroke-width", "stroke-dasharray", "stroke-opacity", "stroke-linejoin", "opacity", "font-size", "font-family", "font-weight", "font-style", "text-anchor", "paint-order", "visibility"];
const NS = "http://www.w3.org/2000/svg";

/** The SVG as standalone text, in the colours it has on the page now. */
export function svgText(svg, title) {
  const copy = svg.cloneNode(true);
  const from = [svg, ...svg.querySelectorAll("*")];
  const to = [copy, ...copy.querySelectorAll("*")];
  from.forEach((node, i) => {
    const target = to[i];
    target.removeAttribute("class");
    target.removeAttribute("tabindex");
    target.removeAttribute("role");
    if (node.tagName === "title") return;
    const cs = getComputedStyle(node);
    for (const p of PROPS) {
      const v = cs.getPropertyValue(p);
      if (v) target.setAttribute(p, v);
    }
  });
  const width = svg.getAttribute("width") || svg.clientWidth;
  const height = svg.getAttribute("height") || svg.clientHeight;
  copy.setAttribute("xmlns", NS);
  copy.setAttribute("width", width);
  copy.setAttribute("height", height);
  const bg = document.createElementNS(NS, "rect");
  bg.setAttribute("width", "100%");
  bg.setAttribute("height", "100%");
  bg.setAttribute("fill", getComputedStyle(document.body).backgroundColor);
  copy.insertBefore(bg, copy.firstChild);
  if (title) {
    const t = document.createElementNS(NS, "title");
    t.textContent = title;
    copy.insertBefore(t, copy.firstChild);
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}\n`;
}

/** A data: URL (the page's CSP allows data: images, not blob: ones). */
export const dataUrl = (svg) => `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;

function save(name, blob) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

export function downloadSvg(svg, name, title) {
  save(`${name}.svg`, new Blob([svgText(svg, title)], { type: "image/svg+xml" }));
}

/** Renders the exported SVG at 2× onto a canvas and saves it as PNG. */
export async function downloadPng(svg, name, title) {
  const text = svgText(svg, title);
  const img = new Image();
  img.src = dataUrl(text);
  await img.decode();
  const scale = 2;
  const canvas = document.createElement("canvas");
  canvas.width = Math.ceil(img.naturalWidth * scale);
  canvas.height = Math.ceil(img.naturalHeight * scale);
  const g = canvas.getContext("2d");
  g.scale(scale, scale);
  g.drawImage(img, 0, 0);
  const blob = await new Promise((done) => canvas.toBlob(done, "image/png"));
  save(`${name}.png`, blob);
}

/** Two buttons that export `get()` (the SVG element) as `name`. */
export function exportButtons(h, get, name, title) {
  return h("span", { class: "export" },
    h("button", { type: "button", "data-export": "svg", onclick: () => downloadSvg(get(), name, title()) }, "Export SVG"),
    h("button", { type: "button", "data-export": "png", onclick: () => downloadPng(get(), name, title()) }, "PNG"));
}
