// A small VitePress site for the docs-site tests: ```hwscope blocks through the hwscope
// package (installed from the packed tarball), in its config and its theme.
import { defineConfig } from "vitepress";
import { withHwscope } from "hwscope/vitepress";

export default withHwscope(defineConfig({ title: "hwscope in VitePress" }));
