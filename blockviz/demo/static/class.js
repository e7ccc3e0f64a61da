// The class page in a browser: start it with the browser's own EventSource, fetch and clock.
import { classPage } from "./class_page.js";

window.bvClass = classPage({
  document, EventSource, fetch: window.fetch.bind(window),
  motion: !window.matchMedia("(prefers-reduced-motion: reduce)").matches,
  frame: (f) => requestAnimationFrame(f),
  prefersDark: () => window.matchMedia("(prefers-color-scheme: dark)").matches,
});
