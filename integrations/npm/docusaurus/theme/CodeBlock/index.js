// ```hwscope blocks become <HwscopeFigure>; every other block is the theme's own CodeBlock.
import React from "react";
import CodeBlock from "@theme-init/CodeBlock";
import HwscopeFigure from "@theme/HwscopeFigure";

export default function CodeBlockWithHwscope(props) {
  const lang = props.language ?? /(?:^|\s)language-(\S+)/.exec(props.className ?? "")?.[1];
  if (lang === "hwscope") {
    const source = /(?:^|\s)source=(\S+)/.exec(props.metastring ?? "")?.[1];
    return React.createElement(HwscopeFigure, { text: String(props.children ?? ""), source });
  }
  return React.createElement(CodeBlock, props);
}
