// The postMessage protocol between an embedded playground (api.js) and
// its host page (embed.js): {type: "hwscope:<name>", v: 1, …}. docs/embedding.md.

export const VERSION = 1;
export const COMMANDS = ["play", "pause", "step", "back", "seek", "theme", "ping"];

export const message = (name, fields) => ({ ...fields, type: `hwscope:${name}`, v: VERSION });

/** "seek", "ready"… for one of ours, else null. */
export const nameOf = (m) => (typeof m?.type === "string" && m.type.startsWith("hwscope:") ? m.type.slice(8) : null);
