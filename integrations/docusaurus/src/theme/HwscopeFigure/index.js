// A ```hwscope block: on the server, a placeholder with the block's text (which
// `hwscope render-docs build/` may replace with a static figure); in the browser,
// hwscope's auto.js (from the site's own static files) makes it live and follows
// the colour mode (it watches <html data-theme>). The inner HTML is React's only
// once: hydration keeps what the server page holds, figure included.
import React, { useEffect } from "react";
import useBaseUrl from "@docusaurus/useBaseUrl";
import useDocusaurusContext from "@docusaurus/useDocusaurusContext";

const escape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export default function HwscopeFigure({ source }) {
  const { siteConfig } = useDocusaurusContext();
  const assets = useBaseUrl(siteConfig.themeConfig?.hwscope?.assets ?? "/hwscope/");
  const auto = `${assets.replace(/\/?$/, "/")}www/embed/auto.js`;
  useEffect(() => {
    // One module script per page; it finds this block (and those of later pages) itself.
    if (document.querySelector("script[data-hwscope-auto]")) return;
    const s = document.createElement("script");
    s.type = "module";
    s.src = auto;
    s.dataset.hwscopeAuto = "";
    document.head.append(s);
  }, [auto]);
  return React.createElement("div", {
    className: "hwscope-docusaurus",
    suppressHydrationWarning: true,
    dangerouslySetInnerHTML: { __html: `<div class="hwscope">${escape(source.replace(/\n$/, ""))}</div>` },
  });
}
