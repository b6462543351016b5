// The element's first public address, kept so that pages which already load
// www/embed.js keep working. New pages load www/embed/embed.js directly.
import "./embed/embed.js";
