// The reading thread (./pool-text.ts starts it): one uploaded PDF or HTML page at a time is read here,
// off the caller's event loop, under the thread's heap limit and the pool's deadline, so a hostile
// file costs this thread (terminated) and never the process.
import { parentPort, workerData } from 'node:worker_threads';
import { htmlToMarkdown, type HtmlText } from './html-text.js';
import { readPdf, type PdfTextAnswer, type PdfTextRequest } from './pdfjs-text.js';

export interface HtmlTextRequest {
  kind: 'html';
  id: number;
  html: string;
}

export type ThreadRequest = PdfTextRequest | HtmlTextRequest;
export type HtmlTextAnswer = ({ id: number } & HtmlText) | { id: number; error: { kind: 'failed'; message: string } };
export type ThreadAnswer = PdfTextAnswer | HtmlTextAnswer;

/** Marks the thread pool-text.ts started: imported anywhere else, this module listens to nothing. */
export const threadMark = 'imports/reader';

function readHtml(req: HtmlTextRequest): HtmlTextAnswer {
  try {
    return { id: req.id, ...htmlToMarkdown(req.html) };
  } catch (err) {
    const e = err as Error;
    // turndown walks the tree recursively: thousands of nested elements overflow the stack.
    const why = e instanceof RangeError ? 'its elements are nested too deeply' : (e?.message ?? String(err));
    return { id: req.id, error: { kind: 'failed', message: why } };
  }
}

const port = parentPort;
if (port && (workerData as { role?: string } | null)?.role === threadMark) {
  // pdf.js's complaints about a damaged file are no news for the service's log: the answer says it.
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) console[method] = () => undefined;
  port.on('message', (req: ThreadRequest) => {
    if (req.kind === 'html') port.postMessage(readHtml(req));
    else void readPdf(req).then((answer) => port.postMessage(answer));
  });
}
