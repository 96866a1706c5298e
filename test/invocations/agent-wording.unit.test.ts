// Issue #37: the text agents' behaviour on real text. tag-keywords stems both sides of a rule and,
// without rules, picks distinctive terms (never stop words or general words such as "day", "every");
// split-sections makes no heading-only artifact; summaries count with proper plurals. The texts are
// records of the Cranfield (aeronautics) and CACM (computing) test collections, public research data.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitSections } from '../../src/invocations/agents/builtin/split-sections.js';
import { tagKeywords } from '../../src/invocations/agents/builtin/tag-keywords.js';
import { dedupe } from '../../src/invocations/agents/builtin/dedupe.js';
import type { AgentArtifact, AgentRun } from '../../src/invocations/agents/types.js';

const ws = '00000000-0000-4000-8000-000000000001';
let n = 0;
const artifact = (title: string, content: string, over: Partial<AgentArtifact> = {}): AgentArtifact => ({
  id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  title,
  content_type: 'text/markdown',
  content,
  context: {},
  revision: 1,
  collection_id: ws,
  in_workspace: true,
  ...over,
});

const run = (
  agent: { params: { parse(p: unknown): unknown }; run(r: AgentRun<unknown>): Promise<any> },
  artifacts: AgentArtifact[],
  params = {},
) =>
  agent.run({
    workspaceId: ws,
    artifacts,
    input: null,
    params: agent.params.parse(params),
    llm: undefined as never,
    contextText: async () => '',
    signal: new AbortController().signal,
  });

// Cranfield 1 and 6, CACM 20 and 39 (title and abstract, as the collections have them).
const cranfield1 = artifact(
  'experimental investigation of the aerodynamics of a wing in a slipstream',
  `an experimental study of a wing in a propeller slipstream was made in order to determine the spanwise distribution of the lift
increase due to slipstream at different angles of attack of the wing and at different free stream to slipstream velocity ratios. the
results were intended in part as an evaluation basis for different theoretical treatments of this problem. the comparative span
loading curves, together with supporting evidence, showed that a substantial part of the lift increment produced by the slipstream
was due to a /destalling/ or boundary-layer-control effect. the integrated remaining lift increment, after subtracting this
destalling lift, was found to agree well with a potential flow theory. an empirical evaluation of the destalling effects was made
for the specific configuration of the experiment.`,
);
const cranfield6 = artifact(
  'one-dimensional transient heat flow in a multilayer slab',
  `in a recent contribution to the readers' forum wassermann gave analytic solutions for the temperature in a double layer slab,
with a triangular heat rate input at one face, insulated at the other, and with no thermal resistance at the interface. his
solutions were for the three particular cases.. i propose here to give the general solution to this problem, to indicate briefly
how it is obtained using the method of reference 2, and to point out that the solutions given by wassermann are incomplete for
times longer than the duration of the heat input.`,
);
const cacm20 = artifact(
  'Accelerating Convergence of Iterative Processes',
  `A technique is discussed which, when applied to an iterative procedure for the solution of an equation, accelerates the rate of
convergence if the iteration converges and induces convergence if the iteration diverges. An illustrative example is given.`,
);
const cacm39 = artifact(
  'The Secant Method for Simultaneous Nonlinear Equations',
  `A procedure for the simultaneous solution of a system of not-necessarily-linear equations, a generalization of the secant method
for a single function of one variable, is given.`,
);
const diary = artifact(
  'Diary',
  'Every day I walk to the office. Every day is a good day, and every morning the day starts early, day after day.',
);

const stopLike = new Set(['day', 'every', 'the', 'and', 'given', 'made', 'part', 'when', 'which']);

describe('tag-keywords', () => {
  it('matches rules on stems, both ways: "telescope" tags "telescopes", "slipstreams" tags "slipstream"', async () => {
    const sky = artifact('Observing night', 'Two telescopes were pointed at the comet; the observers compared their images.');
    const out = await run(tagKeywords, [sky, cranfield1, cacm20], {
      rules: { astronomy: ['telescope', 'observing'], aero: ['slipstreams'], numerics: ['iteration converge'], none: ['submarine'] },
    });
    const tags = Object.fromEntries(out.actions.map((a: any) => [a.target, a.payload.context.tags]));
    assert.deepEqual(tags[sky.id], ['astronomy']);
    assert.deepEqual(tags[cranfield1.id], ['aero']);
    assert.deepEqual(tags[cacm20.id], ['numerics'], 'a phrase matches its stems in sequence ("iteration converges")');
    assert.equal(out.output, '3 artifacts get new tags.');
  });

  it('without rules proposes distinctive terms of real abstracts (Cranfield, CACM), never stop-word-like ones', async () => {
    const all = [cranfield1, cranfield6, cacm20, cacm39, diary];
    const out = await run(tagKeywords, all, { count: 4 });
    const tags = Object.fromEntries(out.actions.map((a: any) => [a.target, a.payload.context.tags as string[]]));
    assert.deepEqual([...tags[cranfield1.id]!].sort(), ['destalling', 'lift', 'slipstream', 'wing']);
    assert.ok(tags[cranfield6.id]!.includes('slab') && tags[cranfield6.id]!.includes('heat'), String(tags[cranfield6.id]));
    assert.ok(tags[cacm20.id]!.includes('convergence') && tags[cacm20.id]!.includes('iterative'), String(tags[cacm20.id]));
    assert.ok(tags[cacm39.id]!.includes('secant'), String(tags[cacm39.id]));
    for (const t of Object.values(tags).flat()) {
      assert.ok(!stopLike.has(t), `"${t}" is not a tag`);
      assert.ok(t.length >= 4 && !/\d/.test(t), `"${t}" is short or a number`);
    }
    assert.ok(!tags[diary.id]?.some((t: string) => t === 'day' || t === 'every'), String(tags[diary.id]));
  });

  it('counts its summary with the right plural', async () => {
    const one = await run(tagKeywords, [cacm20], { rules: { numerics: ['convergence'] } });
    assert.equal(one.output, '1 artifact gets new tags.');
    const none = await run(tagKeywords, [cacm20], { rules: { x: ['submarine'] } });
    assert.equal(none.output, '0 artifacts get new tags.');
  });
});

describe('split-sections', () => {
  it('folds a heading with no body into the next section, and drops a trailing one', async () => {
    const doc = artifact(
      'Book',
      '# Part I\n## Chapter 1\nIt begins.\n\n## Chapter 2\nIt goes on.\n\n## Empty\n\n## Chapter 3\nIt ends.\n\n## Appendix\n',
    );
    const out = await run(splitSections, [doc]);
    const sections = out.actions.map((a: any) => [a.payload.title, a.payload.content]);
    assert.deepEqual(sections, [
      ['Chapter 1', '# Part I\n## Chapter 1\nIt begins.'],
      ['Chapter 2', '## Chapter 2\nIt goes on.'],
      ['Chapter 3', '## Empty\n## Chapter 3\nIt ends.'],
    ]);
    assert.ok(out.actions.every((a: any) => a.payload.context.sections === 3));
    assert.equal(out.output, '3 sections proposed.');
  });

  it('proposes nothing for a document that is one section', async () => {
    const single = await run(splitSections, [artifact('One', '# Only\n' + 'word '.repeat(100))], {});
    assert.equal(single.output, '0 sections proposed.', 'one section is no split');
  });
});

describe('dedupe', () => {
  it('counts with the right plural', async () => {
    const out = await run(dedupe, [cacm20, artifact('copy', cacm20.content)]);
    assert.equal(out.output, '1 of 2 artifacts is a near-identical copy.');
  });
});
