// HTML to Markdown for import: the platform never renders a user's HTML (it would run their scripts in
// our pages), so an HTML file becomes the Markdown of its text. turndown parses with its own DOM
// (domino, no browser, no network: nothing the page names is ever fetched). Scripts, styles, frames,
// forms and embedded objects go with their text; images become their alt text (no tracking pixel,
// no megabytes of data: URL); a link keeps its target only when it is absolute http(s) or mailto.
import TurndownService from 'turndown';

const dropped = [
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'form',
  'input',
  'button',
  'select',
  'textarea',
  'svg',
  'math',
  'canvas',
  'audio',
  'video',
  'link',
  'meta',
  'base',
] as const;

const safeHref = (raw: string | null): string | null => {
  if (!raw) return null;
  try {
    const url = new URL(raw.trim());
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url.href : null;
  } catch {
    return null; // relative: nowhere to point once imported
  }
};

const oneLine = (text: string | null | undefined) => (text ?? '').replace(/\s+/g, ' ').trim();

export interface HtmlText {
  markdown: string;
  /** <title>, else the first <h1>, as text; null when neither has any. */
  title: string | null;
}

export function htmlToMarkdown(html: string): HtmlText {
  let title: string | null = null;
  let h1: string | null = null;
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' });
  service.remove([...dropped] as TurndownService.TagName[]);
  // Text that looks like a tag stays text in any Markdown renderer, raw HTML allowed or not: `\<` is
  // CommonMark's escaped `<`.
  const escape = service.escape.bind(service);
  service.escape = (text: string) => escape(text).replace(/</g, '\\<');
  service.addRule('title', {
    filter: 'title',
    replacement: (_content, node) => {
      title ??= oneLine(node.textContent) || null;
      return '';
    },
  });
  service.addRule('first-h1', {
    filter: (node) => node.nodeName === 'H1' && h1 === null,
    replacement: (content, node) => {
      h1 = oneLine(node.textContent) || null;
      return `\n\n# ${content.replace(/\s+/g, ' ').trim()}\n\n`;
    },
  });
  service.addRule('image', {
    filter: 'img',
    replacement: (_content, node) => service.escape(oneLine((node as HTMLElement).getAttribute('alt'))),
  });
  service.addRule('link', {
    filter: (node) => node.nodeName === 'A',
    replacement: (content, node) => {
      const href = safeHref((node as HTMLElement).getAttribute('href'));
      const text = content.trim();
      if (!text) return '';
      return href ? `[${text}](<${href.replace(/[<>]/g, encodeURIComponent)}>)` : text;
    },
  });
  const markdown = service
    .turndown(html)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { markdown, title: title ?? h1 };
}
