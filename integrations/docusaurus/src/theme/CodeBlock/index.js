// ```hwscope blocks become <HwscopeFigure>; every other block is the theme's own CodeBlock.
import React from "react";
import CodeBlock from "@theme-init/CodeBlock";
import HwscopeFigure from "@theme/HwscopeFigure";

export default function CodeBlockWithHwscope(props) {
  const lang = props.language ?? /(?:^|\s)language-(\S+)/.exec(props.className ?? "")?.[1];
  if (lang === "hwscope") return React.createElement(HwscopeFigure, { source: String(props.children ?? "") });
  return React.createElement(CodeBlock, props);
}
