// A small Starlight site for the docs-site tests: ```hwscope blocks through the hwscope
// package's Astro integration (installed from the packed tarball).
import { defineConfig } from "astro/config";
import starlight from "@astrojs/starlight";
import hwscope from "hwscope/astro";

export default defineConfig({
  integrations: [starlight({ title: "hwscope in Starlight" }), hwscope()],
});
