// A ```hwscope block. On the server: the block's text in <div class="hwscope">, which
// the theme's postBuild draws as a static figure (hwscope render-docs). In the
// browser: <baseUrl>hwscope/www/embed/auto.js, loaded once, on the first page that
// has a block, makes the figure live, follows the colour mode and finds the blocks
// of the pages reached later. The inner HTML is React's only once: hydration keeps
// what the built page holds, static figure included.
import React, { useEffect } from "react";
import useBaseUrl from "@docusaurus/useBaseUrl";

const escape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

export default function HwscopeFigure({ text, source }) {
  const auto = useBaseUrl("/hwscope/www/embed/auto.js");
  useEffect(() => {
    if (document.querySelector("script[data-hwscope-auto]")) return;
    const s = document.createElement("script");
    s.type = "module";
    s.src = auto;
    s.dataset.hwscopeAuto = "";
    document.head.append(s);
  }, [auto]);
  const where = source ? ` data-hwscope-source="${escape(source)}"` : "";
  return React.createElement("div", {
    className: "hwscope-docusaurus",
    suppressHydrationWarning: true,
    dangerouslySetInnerHTML: { __html: `<div class="hwscope"${where}>${escape(text.replace(/\n$/, ""))}</div>` },
  });
}
