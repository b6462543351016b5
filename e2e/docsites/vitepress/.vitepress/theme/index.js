import DefaultTheme from "vitepress/theme";
import { withHwscope } from "hwscope/vitepress/client";

export default withHwscope(DefaultTheme);
