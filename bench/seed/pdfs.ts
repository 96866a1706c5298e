// Real text PDFs for the import tests and bench (issue #33): each page draws its own lines of made-up
// words, distinct on every page of every document, so a search for one word finds one page. The
// output is the same for the same arguments (fixed dates, a seeded word stream).
import { PDFDocument, StandardFonts } from 'pdf-lib';

const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'be', 'da', 'fu', 'go', 'hi', 'ju', 'pe', 'zo'];

/** A word for a number, two syllables or more: 0 → `kaka`, 17 → `lolo`… distinct for distinct numbers. */
export function word(n: number): string {
  let out = '';
  let rest = n;
  do {
    out = syllables[rest % syllables.length]! + out;
    rest = Math.floor(rest / syllables.length);
  } while (rest > 0);
  return out.length < 4 ? syllables[0]! + out : out;
}

const wordsPerLine = 8;
const linesPerPage = 6;

export interface GeneratedPdf {
  name: string;
  bytes: Buffer;
  /** Each page's text as drawn: lines joined by newlines. */
  pageTexts: string[];
}

export async function textPdfs(n: number, pagesEach = 3): Promise<GeneratedPdf[]> {
  const out: GeneratedPdf[] = [];
  const fixed = new Date('2026-01-01T00:00:00Z');
  let next = 0;
  for (let d = 0; d < n; d++) {
    const doc = await PDFDocument.create();
    doc.setTitle(`Generated document ${d + 1}`);
    doc.setCreationDate(fixed);
    doc.setModificationDate(fixed);
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const pageTexts: string[] = [];
    for (let p = 0; p < pagesEach; p++) {
      const page = doc.addPage([595, 842]);
      const lines: string[] = [`Document ${d + 1} page ${p + 1}`];
      for (let l = 0; l < linesPerPage; l++) {
        lines.push(Array.from({ length: wordsPerLine }, () => word(next++)).join(' '));
      }
      lines.forEach((line, i) => page.drawText(line, { x: 50, y: 780 - i * 20, size: 12, font }));
      pageTexts.push(lines.join('\n'));
    }
    out.push({ name: `generated-${String(d + 1).padStart(4, '0')}.pdf`, bytes: Buffer.from(await doc.save()), pageTexts });
  }
  return out;
}
