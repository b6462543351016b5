// The entry of the classic bundle (scripts/standalone.mjs writes it to
// www/pkg/standalone.js): the inline core first, then the page's own boot.
// www/boot.js loads it in a document with an opaque origin.
import "./inline-core.js";
import "../main.js";
