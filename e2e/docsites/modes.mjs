// Each tool's own dark mode, switched as its reader would (its own setting,
// not our code): mdBook's theme class, Docusaurus's and Starlight's data-theme,
// VitePress's html.dark, MkDocs
// Material's palette (data-md-color-scheme), the MkDocs theme's colour mode
// (data-bs-theme); the Hugo fixture follows the OS (prefers-color-scheme, emulated).

export async function darkMode(page, tool, dark) {
  if (tool === "mdbook") {
    await page.evaluate((d) => {
      const html = document.documentElement;
      html.classList.remove("light", "rust", "coal", "navy", "ayu");
      html.classList.add(d ? "coal" : "light");
    }, dark);
  } else if (tool === "vitepress" || tool === "docusaurus" || tool === "starlight") {
    await themeToggle(page, tool, dark);
  } else if (tool === "docusaurus-attr") {
    await page.evaluate((d) => document.documentElement.setAttribute("data-theme", d ? "dark" : "light"), dark);
  } else if (tool === "mkdocs-material" || tool === "zensical") {
    await page.evaluate((d) => document.body.setAttribute("data-md-color-scheme", d ? "slate" : "default"), dark);
  } else if (tool === "mkdocs") {
    await page.evaluate((d) => document.documentElement.setAttribute("data-bs-theme", d ? "dark" : "light"), dark);
  } else {
    await page.emulateMedia({ colorScheme: dark ? "dark" : "light" });
  }
}

/** The site's own colour-mode control, used as a reader would: Docusaurus's and VitePress's
 *  toggle buttons (clicked until the mode is the one wanted), Starlight's theme select. */
export async function themeToggle(page, tool, dark) {
  const isDark = () =>
    page.evaluate((t) => (t === "vitepress" ? document.documentElement.classList.contains("dark") : document.documentElement.dataset.theme === "dark"), tool);
  if (tool === "starlight") {
    await page.locator("starlight-theme-select select").first().selectOption(dark ? "dark" : "light");
  } else {
    const button = tool === "vitepress" ? page.locator("button.VPSwitchAppearance").first() : page.locator("nav button[title*='dark' i], nav button[aria-label*='dark' i]").first();
    for (let i = 0; i < 3 && (await isDark()) !== dark; i++) await button.click();
  }
  if ((await isDark()) !== dark) throw new Error(`${tool}: the colour-mode control did not switch to ${dark ? "dark" : "light"}`);
}
