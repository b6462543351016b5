// hwscope/vitepress/client: the theme part (SSR-safe: it does nothing on the server).
// On a page with a hwscope figure, loads <base>hwscope/www/embed/auto.js once (told
// that VitePress marks dark mode with <html class="dark">); after each route change,
// again if the new page is the first with a figure. auto.js then finds every figure,
// including those of later pages.
let loaded = false;
let base = "/";

function load() {
  if (loaded || !document.querySelector(".hwscope-figure, .hwscope-vitepress")) return;
  loaded = true;
  const s = document.createElement("script");
  s.type = "module";
  s.src = `${base.replace(/\/?$/, "/")}hwscope/www/embed/auto.js?dark-class=dark`;
  s.dataset.hwscopeAuto = "";
  document.head.append(s);
}

/** The theme with hwscope's client part. */
export function withHwscope(theme) {
  return {
    ...theme,
    enhanceApp(ctx) {
      theme.enhanceApp?.(ctx);
      if (typeof window === "undefined") return;
      const { router, siteData } = ctx;
      base = siteData?.value?.base ?? "/";
      const before = router.onAfterRouteChange;
      router.onAfterRouteChange = (to) => {
        before?.(to);
        // The new page is in the document after the next render.
        requestAnimationFrame(() => requestAnimationFrame(load));
      };
      requestAnimationFrame(load);
    },
  };
}

export default withHwscope;
