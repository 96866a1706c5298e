// File import's extraction (src/imports/extract.ts): each type to an artifact's fields, its title, and
// each way a file is refused. PDFs are real: generated (bench/seed/pdfs.ts), written by hand to be
// hostile, or encrypted by qpdf (test/fixtures/imports: `qpdf --encrypt secret owner 256 --` of a
// generated two-page PDF for password.pdf; an empty user password for owner-password.pdf).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import { textPdfs } from '../../bench/seed/pdfs.js';
import {
  extractFile,
  ImportItemError,
  importableTypes,
  markdownTitle,
  type ExtractLimits,
  type ImportFile,
} from '../../src/imports/extract.js';
import { pdfText } from '../../src/imports/pool-text.js';

const limits = { maxBytes: 1024 * 1024 };
const file = (name: string, body: string | Buffer, contentType?: string): ImportFile => ({
  name,
  contentType,
  bytes: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
});
const fixture = (name: string) => readFileSync(new URL(`../fixtures/imports/${name}`, import.meta.url));

async function refused(f: ImportFile, reason: ImportItemError['reason'], message?: RegExp, max: ExtractLimits = limits) {
  await assert.rejects(extractFile(f, max), (err: unknown) => {
    assert.ok(err instanceof ImportItemError, `an ImportItemError, not ${String(err)}`);
    assert.equal(err.reason, reason, err.message);
    if (message) assert.match(err.message, message);
    return true;
  });
}

/** A one-page PDF written by hand: `content` is its page's content stream (deflated), `catalog` extra catalog entries. */
function handPdf(content: Buffer, catalog = ''): Buffer {
  const z = deflateSync(content, { level: 9 });
  const chunks: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (b: Buffer | string) => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    chunks.push(buf);
    length += buf.length;
  };
  push('%PDF-1.4\n');
  const objects: (string | null)[] = [
    `<< /Type /Catalog /Pages 2 0 R ${catalog} >>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    null, // the content stream
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  objects.forEach((body, i) => {
    offsets.push(length);
    if (body !== null) return push(`${i + 1} 0 obj\n${body}\nendobj\n`);
    push(`${i + 1} 0 obj\n<< /Length ${z.length} /Filter /FlateDecode >>\nstream\n`);
    push(z);
    push('\nendstream\nendobj\n');
  });
  const xref = length;
  push(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`);
  push(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(chunks);
}
const showText = (text: string) => Buffer.from(`BT /F1 12 Tf 50 700 Td (${text}) Tj ET`, 'latin1');

describe('extractFile: text', () => {
  it('markdown: kept as written, titled by its first ATX heading outside code', async () => {
    const body = '\uFEFFIntro line\n\n```\n# not a title\n```\n\n## The *real* title ##\n\n# Later\n';
    const item = await extractFile(file('notes.md', body), limits);
    assert.equal(item.content_type, 'text/markdown');
    assert.equal(item.content, body.slice(1), 'the BOM goes, nothing else');
    assert.equal(item.title, 'The *real* title');
    assert.equal(item.search_text, undefined);
    assert.deepEqual(Object.keys(item.context.file as object).sort(), ['bytes', 'name', 'sha256', 'type_from']);
  });

  it('markdown: front matter title first; without a heading the file name; a declared type beats the extension', async () => {
    assert.equal(markdownTitle('---\nlayout: x\ntitle: "From front matter"\n---\n# Heading\n'), 'From front matter');
    assert.equal(markdownTitle('#hashtag\n#\n  ### Why C# ###  \n'), 'Why C#', 'a closing sequence goes, a word ending in # stays');
    assert.equal(markdownTitle('# x\\#\n'), 'x\\#');
    const item = await extractFile(file('dir/sub\\Meeting notes.txt', 'no heading here\n', 'text/markdown; charset=utf-8'), limits);
    assert.equal(item.content_type, 'text/markdown');
    assert.equal(item.title, 'Meeting notes');
    assert.equal((item.context.file as { type_from: string }).type_from, 'content-type');
    const labelled = await extractFile(file('readme.markdown', '# Read me', 'text/plain'), limits);
    assert.deepEqual([labelled.content_type, labelled.title], ['text/markdown', 'Read me'], 'text/plain is any text: .md stays Markdown');
  });

  it('plain text: titled by the file name; the first line when the name has none', async () => {
    const item = await extractFile(file('report.final.txt', 'First line\nsecond'), limits);
    assert.equal(item.content_type, 'text/plain');
    assert.equal(item.title, 'report.final');
    assert.equal(item.content, 'First line\nsecond');
    const nameless = await extractFile(file('  .txt', '  First line  \nsecond'), limits);
    assert.equal(nameless.title, 'First line');
    assert.equal((await extractFile(file('', '\n\n  Only line', 'text/plain'), limits)).title, 'Only line');
  });

  it('a title is one trimmed line of at most 500 characters, never cut inside a surrogate pair', async () => {
    const odd = await extractFile(file('x.md', `#   a${'🙂'.repeat(600)}\tend  \n`), limits);
    assert.equal(odd.title, `a${'🙂'.repeat(249)}`);
    const even = await extractFile(file('x.md', `#   ${'🙂'.repeat(600)}\n`), limits);
    assert.equal(even.title, '🙂'.repeat(250));
    const lines = await extractFile(file('  line\r\nbreaks\u0000  .txt', 'x'), limits);
    assert.equal(lines.title, 'line breaks');
  });

  it('JSON: the original text, titled by a top-level "title" string, else the file name', async () => {
    const body = '{ "title": "  Config  ", "n": 1 }';
    const item = await extractFile(file('c.json', body), limits);
    assert.deepEqual([item.content_type, item.content, item.title], ['application/json', body, 'Config']);
    const untitled = await extractFile(file('data.bin', '[{"title":"not top level"}]', 'application/ld+json'), limits);
    assert.equal(untitled.title, 'data');
    await refused(file('bad.json', '{"a": 1,}'), 'invalid-json');
  });

  it('refuses non-UTF-8, NUL bytes and files with no text', async () => {
    await refused(file('latin1.txt', Buffer.from('caf\xe9', 'latin1')), 'invalid-text', /UTF-8/);
    await refused(file('nul.md', Buffer.from('a\0b')), 'invalid-text', /NUL/);
    await refused(file('bad.json', Buffer.from([0x7b, 0xff, 0x7d])), 'invalid-text');
    await refused(file('blank.txt', ' \n\t\n'), 'empty');
    await refused(file('bom-only.md', Buffer.from([0xef, 0xbb, 0xbf])), 'empty');
  });
});

describe('extractFile: HTML', () => {
  const page = `<!doctype html><html><head><title> The  page </title><style>body{color:red}</style>
    <script>document.write("SCRIPTTEXT")</script></head><body>
    <h1>Heading one</h1><p>Hello <b>bold</b> and <a href="https://example.org/a?b=1">a link</a>,
    <a href="javascript:alert('JSLINK')">bad link</a>, <a href="/relative">relative</a>.</p>
    <img src="data:image/png;base64,AAAA" alt="a picture <script>"><noscript>NOSCRIPTTEXT</noscript>
    <iframe src="https://evil.example/">IFRAMETEXT</iframe><form><input value="FORMTEXT"><button>BUTTONTEXT</button></form>
    <ul><li>one</li><li>two</li></ul><p>&lt;img src=x onerror=alert(1)&gt; stays text</p></body></html>`;

  it('becomes Markdown of its text: scripts, styles, frames and forms gone, unsafe links text only', async () => {
    const item = await extractFile(file('page.html', page), limits);
    assert.equal(item.content_type, 'text/markdown');
    assert.equal(item.context.converted_from, 'text/html');
    assert.equal(item.title, 'The page');
    for (const gone of [
      'SCRIPTTEXT',
      'document.write',
      'color:red',
      'NOSCRIPTTEXT',
      'IFRAMETEXT',
      'FORMTEXT',
      'BUTTONTEXT',
      'javascript',
      'data:image',
      '/relative)',
    ]) {
      assert.ok(!item.content.includes(gone), `${gone} in ${item.content}`);
    }
    assert.match(item.content, /^# Heading one$/m);
    assert.match(item.content, /Hello \*\*bold\*\* and \[a link\]\(<https:\/\/example\.org\/a\?b=1>\)/);
    assert.match(item.content, /bad link, relative\./);
    assert.match(item.content, /a picture \\<script>/);
    assert.doesNotMatch(item.content, /(?<![\\(])</, 'no < a renderer could take for a tag');
    assert.match(item.content, /^-\s+one$/m);
    assert.match(item.content, /\\<img src=x onerror=alert\(1\)> stays text/, 'a tag in the text stays escaped text');
  });

  it('is titled by its first <h1> without a <title>, else by the file name; a page of markup only is empty', async () => {
    assert.equal((await extractFile(file('a.htm', '<p>x</p><h1>First <i>h1</i></h1><h1>Second</h1>'), limits)).title, 'First h1');
    assert.equal((await extractFile(file('Some page.xhtml', '<p>text</p>'), limits)).title, 'Some page');
    await refused(file('s.html', '<script>only()</script><style>p{}</style>'), 'empty');
  });

  it('converts in a thread with a deadline: a page nested past reason is refused, the next one converted', async () => {
    const deep = '<div>'.repeat(50_000) + 'deep' + '</div>'.repeat(50_000);
    await refused(file('deep.html', deep), 'invalid-text', /could not be converted: .*longer than 500 ms/, { ...limits, deadlineMs: 500 });
    assert.equal((await extractFile(file('ok.html', '<p>fine</p>'), limits)).content, 'fine');
  });
});

describe('extractFile: type and size', () => {
  it('lists what it takes and refuses the rest by name', async () => {
    assert.deepEqual([...importableTypes], ['text/markdown', 'text/plain', 'text/html', 'application/json', 'application/pdf']);
    await refused(file('a.png', 'x', 'image/png'), 'unsupported-type', /image\/png.*text\/markdown/);
    await refused(file('a.docx', 'x'), 'unsupported-type', /\.docx/);
    await refused(file('README', 'x', 'application/octet-stream'), 'unsupported-type', /without a type or extension/);
  });

  it('refuses a file over the byte limit before reading it', async () => {
    await refused(file('big.txt', 'x'.repeat(101)), 'too-large', /101 bytes; at most 100/, { maxBytes: 100 });
    // Not even a PDF is opened: garbage that would be 'unreadable-pdf' is 'too-large' first.
    await refused(file('big.pdf', '%PDF-garbage'), 'too-large', undefined, { maxBytes: 5 });
    assert.equal((await extractFile(file('ok.txt', 'x'.repeat(100)), { maxBytes: 100 })).content.length, 100);
  });
});

describe('extractFile: PDF', () => {
  it('keeps the bytes as base64 and finds each page of a generated PDF, in order', async () => {
    const [pdf] = await textPdfs(1, 4);
    const item = await extractFile({ name: pdf!.name, bytes: pdf!.bytes }, limits);
    assert.equal(item.content_type, 'application/pdf');
    assert.deepEqual(Buffer.from(item.content, 'base64'), pdf!.bytes);
    assert.equal(item.title, 'Generated document 1', 'the Info Title');
    assert.equal(item.context.pages, 4);
    assert.deepEqual(item.search_text!.split('\n\n'), pdf!.pageTexts, 'each page, as drawn, in order');
    assert.deepEqual(
      item.context.page_text_chars,
      pdf!.pageTexts.map((t) => t.length),
    );
    assert.equal(item.context.text, undefined);
  });

  it('reads a PDF by its bytes whatever it was called, and says so', async () => {
    const [pdf] = await textPdfs(1, 1);
    const item = await extractFile({ name: 'upload', contentType: 'text/plain', bytes: pdf!.bytes }, limits);
    assert.equal(item.content_type, 'application/pdf');
    assert.deepEqual(item.context.file, {
      name: 'upload',
      bytes: pdf!.bytes.length,
      sha256: (item.context.file as { sha256: string }).sha256,
      declared_type: 'text/plain',
      type_from: 'bytes',
    });
    const nameless = await extractFile({ name: 'scan', bytes: pdf!.bytes }, limits);
    assert.equal(nameless.content_type, 'application/pdf');
  });

  it('titles a PDF without an Info Title by its file name; a PDF without text is kept and says so', async () => {
    const titled = await extractFile(file('Hand made.pdf', handPdf(showText('hand written words'))), limits);
    assert.equal(titled.title, 'Hand made');
    assert.equal(titled.search_text, 'hand written words');
    const blank = await extractFile(file('scan.pdf', handPdf(Buffer.from('0 0 m 10 10 l S'))), limits);
    assert.equal(blank.search_text, '');
    assert.equal(blank.context.text, 'none');
  });

  it('refuses what is not a PDF, garbage after the header, and a truncated file', async () => {
    await refused(file('fake.pdf', 'just text'), 'unreadable-pdf', /no %PDF- header/);
    await refused(file('x', 'hello', 'application/pdf'), 'unreadable-pdf');
    await refused(file('garbage.pdf', Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(4000, 0x5a)])), 'unreadable-pdf');
    const [pdf] = await textPdfs(1, 2);
    await refused(file('cut.pdf', pdf!.bytes.subarray(0, 200)), 'unreadable-pdf');
  });

  it('refuses a PDF locked by a password; opens one with only an owner password, as viewers do', async () => {
    await refused(file('password.pdf', fixture('password.pdf')), 'unreadable-pdf', /password/);
    const open = await extractFile(file('owner-password.pdf', fixture('owner-password.pdf')), limits);
    assert.equal(open.context.encrypted, true);
    assert.equal(open.context.pages, 2);
    assert.match(open.search_text!, /^Document 1 page 1\n[\s\S]*\n\nDocument 1 page 2\n/);
  });

  it('never runs a PDF’s JavaScript: the text is read and nothing else happens', async () => {
    const marker = `__pdf_js_ran_${process.pid}`;
    const js = `(globalThis.${marker} = 1; app.alert\\(1\\))`;
    const item = await extractFile(
      file('js.pdf', handPdf(showText('text beside a script'), `/OpenAction << /S /JavaScript /JS ${js} >>`)),
      limits,
    );
    assert.equal(item.search_text, 'text beside a script');
    assert.equal((globalThis as Record<string, unknown>)[marker], undefined);
  });

  it('bounds a PDF bomb by the deadline and by memory, and the next PDF is read as usual', async () => {
    // 128 MiB of spaces in one content stream, deflated to about 130 KB.
    const bomb = handPdf(Buffer.concat([showText('x'), Buffer.alloc(128 * 2 ** 20, 0x20)]));
    assert.ok(bomb.length < 200_000);
    await refused(file('bomb.pdf', bomb), 'unreadable-pdf', /longer than 300 ms/, { ...limits, deadlineMs: 300 });
    await assert.rejects(pdfText(bomb, { memoryMb: 64 }), /more than 64 MiB of memory/);
    const [pdf] = await textPdfs(1, 1);
    const item = await extractFile({ name: pdf!.name, bytes: pdf!.bytes }, { ...limits, deadlineMs: 10_000 });
    assert.equal(item.search_text, pdf!.pageTexts[0]);
  });

  it('refuses more pages than it reads', async () => {
    const [pdf] = await textPdfs(1, 3);
    await assert.rejects(pdfText(pdf!.bytes, { maxPages: 2 }), /3 pages; at most 2/);
  });

  // A measurement, not an assertion: the figure goes to the notes (goal ≥ 10 PDFs/s).
  it('measures PDFs per second for 100 generated three-page PDFs', async () => {
    const pdfs = await textPdfs(100, 3);
    await extractFile({ name: pdfs[0]!.name, bytes: pdfs[0]!.bytes }, limits); // the thread is up
    const started = performance.now();
    for (const pdf of pdfs) await extractFile({ name: pdf.name, bytes: pdf.bytes }, limits);
    const seconds = (performance.now() - started) / 1000;
    console.log(`# PDF import extraction: ${(100 / seconds).toFixed(1)} PDFs/s (100 three-page PDFs, one at a time)`);
  });
});
