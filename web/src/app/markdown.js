// Statements: Markdown with formulas in \( \), \[ \], $ $ and $$ $$, rendered by marked and KaTeX,
// then sanitized by DOMPurify (HTML and SVG allow-lists: KaTeX draws some glyphs in SVG). That is
// the only HTML the app puts in innerHTML: no script, handler or javascript: URL gets through.
import DOMPurify from "dompurify";
import katex from "katex";
import { Marked } from "marked";

const INLINE = /^(?:\\\((.+?)\\\)|\$(?!\s)([^$\n]+?)\$(?!\d))/;
const BLOCK = /^(?:\\\[([\s\S]+?)\\\]|\$\$([\s\S]+?)\$\$)[ \t]*(?:\n|$)/;

const tex = (source, displayMode) =>
  katex.renderToString(source.trim(), { displayMode, throwOnError: false, output: "html" });

const math = (name, level, rule, start, displayMode) => ({
  name,
  level,
  start: (src) => src.match(start)?.index,
  tokenizer(src) {
    const m = rule.exec(src);
    if (m) return { type: name, raw: m[0], text: m[1] ?? m[2] };
  },
  renderer: (token) => tex(token.text, displayMode),
});

const marked = new Marked({
  extensions: [
    math("blockMath", "block", BLOCK, /\\\[|\$\$/, true),
    math("inlineMath", "inline", INLINE, /\\\(|\$/, false),
  ],
});

const ALLOWED = { USE_PROFILES: { html: true, svg: true } };

/** ``source`` as sanitized HTML, safe for innerHTML. */
export const renderMarkdown = (source) => DOMPurify.sanitize(marked.parse(source), ALLOWED);
