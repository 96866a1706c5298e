import { z } from 'zod';
import type { ProposedAction } from '../../proposed-actions/schema.js';
import { defineAgent, isTextual, type AgentArtifact } from '../types.js';
import { counted } from '../wording.js';

interface Section {
  title: string;
  body: string;
  /** A heading's own line, kept apart from the body it introduces. */
  heading?: string;
}

/** Splits at Markdown headings up to `level` (`#` … `######`); text before the first heading is its own section. */
function byHeadings(a: AgentArtifact, level: number): Section[] {
  const heading = new RegExp(`^(#{1,${level}})\\s+(.+?)\\s*#*\\s*$`);
  const sections: Section[] = [];
  let current: Section | null = null;
  let fence = false;
  for (const line of a.content.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const m = fence ? null : heading.exec(line);
    if (m) {
      if (current) sections.push(current);
      current = { title: m[2]!, heading: line, body: '' };
    } else {
      current ??= { title: a.title, body: '' };
      current.body += `${line}\n`;
    }
  }
  if (current) sections.push(current);
  return foldEmptyHeadings(sections);
}

/**
 * Issue #37: a heading with no body of its own ("# Part I" right before "## Chapter 1") is not a
 * section: its line goes to the top of the next section, which keeps its own title; a trailing one
 * has nothing to introduce and is dropped. Text before the first heading is a section when not blank.
 */
function foldEmptyHeadings(sections: Section[]): Section[] {
  const out: Section[] = [];
  let carried = '';
  for (const s of sections) {
    const body = s.body.trim();
    const head = [carried, s.heading ?? ''].filter(Boolean).join('\n');
    if (!body) {
      carried = head;
      continue;
    }
    out.push({ title: s.title, body: head ? `${head}\n${body}` : body });
    carried = '';
  }
  return out;
}

/** Without headings: paragraphs packed into parts of at most `max` characters. */
function byLength(a: AgentArtifact, max: number): Section[] {
  const parts: string[] = [];
  let part = '';
  for (const paragraph of a.content.split(/\n\s*\n/)) {
    if (part && part.length + paragraph.length + 2 > max) {
      parts.push(part);
      part = '';
    }
    part = part ? `${part}\n\n${paragraph}` : paragraph;
    while (part.length > max) {
      parts.push(part.slice(0, max));
      part = part.slice(max);
    }
  }
  if (part.trim()) parts.push(part);
  return parts.map((body, i) => ({ title: `${a.title} (part ${i + 1} of ${parts.length})`, body: body.trim() }));
}

/** Splits long documents into one new draft per section (Markdown headings, else paragraphs by length). */
export const splitSections = defineAgent({
  name: 'split-sections',
  title: 'Split into sections',
  description:
    'Proposes one new workspace artifact per section of each long document: at Markdown headings up to `level`, or, for text without headings longer than `max_chars`, at paragraph breaks. The source is left as it is.',
  usesLlm: false,
  actions: ['create'],
  params: z.strictObject({
    level: z.int().min(1).max(6).default(2).describe('Deepest heading level that starts a section.'),
    max_chars: z
      .int()
      .min(200)
      .max(1_000_000)
      .default(8000)
      .describe('Text without headings is split only when longer than this, into parts of at most this.'),
  }),
  async run({ artifacts, params, workspaceId }) {
    const actions: ProposedAction[] = [];
    for (const a of artifacts.filter(isTextual)) {
      let sections = byHeadings(a, params.level);
      if (sections.length < 2) sections = a.content.length > params.max_chars ? byLength(a, params.max_chars) : [];
      sections.forEach((s, i) =>
        actions.push({
          kind: 'create' as const,
          target: workspaceId,
          payload: {
            title: s.title.slice(0, 500),
            content_type: a.content_type,
            content: s.body,
            context: { split_from: a.id, section: i + 1, sections: sections.length },
          },
          rationale: `Section ${i + 1} of ${sections.length} of "${a.title}" (${a.id}).`,
        }),
      );
    }
    return { actions, output: `${counted(actions.length, 'section')} proposed.` };
  },
});
