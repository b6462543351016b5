// Each tool's own dark mode, switched as its reader would (its own setting,
// not our code): mdBook's theme class, Docusaurus's data-theme, MkDocs
// Material's palette (data-md-color-scheme), the MkDocs theme's colour mode
// (data-bs-theme); the Hugo fixture follows the OS (prefers-color-scheme, emulated).

export async function darkMode(page, tool, dark) {
  if (tool === "mdbook") {
    await page.evaluate((d) => {
      const html = document.documentElement;
      html.classList.remove("light", "rust", "coal", "navy", "ayu");
      html.classList.add(d ? "coal" : "light");
    }, dark);
  } else if (tool === "docusaurus") {
    await page.evaluate((d) => document.documentElement.setAttribute("data-theme", d ? "dark" : "light"), dark);
  } else if (tool === "mkdocs-material" || tool === "zensical") {
    await page.evaluate((d) => document.body.setAttribute("data-md-color-scheme", d ? "slate" : "default"), dark);
  } else if (tool === "mkdocs") {
    await page.evaluate((d) => document.documentElement.setAttribute("data-bs-theme", d ? "dark" : "light"), dark);
  } else {
    await page.emulateMedia({ colorScheme: dark ? "dark" : "light" });
  }
}
