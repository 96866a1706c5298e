// A PDF's text per page with pdf.js, run only in a reading thread (./thread-text.ts, started by
// ./pool-text.ts), so a hostile PDF costs that thread and never the process. pdf.js runs its "fake
// worker" inside the thread: no second thread, no worker script fetched. It never evaluates code from the
// PDF (isEvalSupported: false, and scripts are only run by a viewer's scripting sandbox, which is never
// created here), never loads system or network fonts, and reads its character maps and standard font
// data from its own package folder on disk.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clean } from './clean-text.js';

export interface PdfTextRequest {
  kind: 'pdf';
  id: number;
  bytes: Uint8Array;
  maxPages: number;
  /** Extraction stops collecting text past this many characters (the answer says it was cut). */
  maxChars: number;
}

export type PdfTextAnswer =
  | { id: number; pages: string[]; title: string | null; encrypted: boolean; truncated: boolean }
  | { id: number; error: { kind: 'password' | 'invalid' | 'too-many-pages' | 'failed'; message: string } };

interface TextItem {
  str?: string;
  hasEOL?: boolean;
}

/** pdf.js puts words' gaps in as spaces and line ends as hasEOL; lines are kept, blank ones dropped,
 * so that a blank line in the joined text only ever separates two pages. */
export function pageText(items: readonly TextItem[]): string {
  let text = '';
  for (const item of items) {
    if (typeof item.str === 'string') text += item.str;
    if (item.hasEOL) text += '\n';
  }
  return clean(text)
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line.length > 0)
    .join('\n');
}

const pdfjsDir = dirname(dirname(dirname(fileURLToPath(import.meta.resolve('pdfjs-dist/legacy/build/pdf.mjs')))));

export async function readPdf(req: PdfTextRequest): Promise<PdfTextAnswer> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const task = pdfjs.getDocument({
    data: req.bytes,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    useWasm: false, // image decoders only: text needs none
    enableXfa: false,
    stopAtErrors: false, // a damaged but readable PDF gives what it can
    maxImageSize: 0, // images are never decoded for text, and never should be
    cMapUrl: join(pdfjsDir, 'cmaps') + '/',
    standardFontDataUrl: join(pdfjsDir, 'standard_fonts') + '/',
    verbosity: 0,
  });
  try {
    const pdf = await task.promise;
    if (pdf.numPages > req.maxPages) {
      return { id: req.id, error: { kind: 'too-many-pages', message: `it has ${pdf.numPages} pages; at most ${req.maxPages} are read` } };
    }
    const meta = await pdf.getMetadata().catch(() => null);
    const info = (meta?.info ?? {}) as Record<string, unknown>;
    const title = typeof info.Title === 'string' ? info.Title : null;
    const encrypted = typeof info.EncryptFilterName === 'string';
    const pages: string[] = [];
    let chars = 0;
    let truncated = false;
    for (let n = 1; n <= pdf.numPages; n++) {
      if (chars > req.maxChars) {
        truncated = true;
        pages.push('');
        continue;
      }
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      let text = pageText(content.items as TextItem[]);
      if (chars + text.length > req.maxChars) {
        text = text.slice(0, Math.max(0, req.maxChars - chars));
        truncated = true;
      }
      chars += text.length + 2;
      pages.push(text);
      page.cleanup();
    }
    return { id: req.id, pages, title, encrypted, truncated };
  } catch (err) {
    const e = err as Error;
    if (e?.name === 'PasswordException') return { id: req.id, error: { kind: 'password', message: 'it is protected by a password' } };
    if (e?.name === 'InvalidPDFException')
      return { id: req.id, error: { kind: 'invalid', message: `it is not a readable PDF (${e.message})` } };
    return { id: req.id, error: { kind: 'failed', message: `reading it failed (${e?.message ?? String(err)})` } };
  } finally {
    await task.destroy().catch(() => undefined);
  }
}
