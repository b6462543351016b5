import { buildSite } from "./site.mjs";
const s = buildSite(process.argv[2], { onError: process.argv[3] || "show", material: process.argv[4] === "m" });
console.log(s.status, s.out, s.log.slice(-1500));
