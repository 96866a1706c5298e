/**
 * The server's few HTML pages (sign-in, consent, authorizations, an OAuth connection's landing page)
 * are built with this kit: one escaper, one page shell. No script, nothing loaded from elsewhere.
 */

/**
 * Text into HTML, in element content and in quoted attribute values alike: every character that could
 * end an attribute (`"`, `'`, and the backtick old browsers took for a quote) or start markup or an
 * entity (`<`, `>`, `&`) is escaped, as is `=` (an unquoted attribute never gets a second one).
 */
export const escapeHtml = (value: string): string => value.replace(/[&<>"'`=]/g, (c) => `&#${c.charCodeAt(0)};`);

export interface HtmlPage {
  /** The document's title, as text (escaped here). */
  title: string;
  /** The page's own CSS (inline: the pages' Content-Security-Policy allows inline style only). */
  style: string;
  /** The body's markup, escaped by the caller where it holds text. */
  body: string;
  /** Attributes of the body element, as text (escaped here). */
  bodyAttributes?: Record<string, string>;
  /** More head elements (markup). */
  head?: string;
}

/** A whole page: doctype, language, charset, viewport, title and style, then the body. */
export function htmlPage(p: HtmlPage): string {
  const attributes = Object.entries(p.bodyAttributes ?? {})
    .map(([name, value]) => ` ${name}="${escapeHtml(value)}"`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
${p.head ?? ''}<title>${escapeHtml(p.title)}</title><style>${p.style}</style></head>
<body${attributes}>${p.body}</body></html>
`;
}
