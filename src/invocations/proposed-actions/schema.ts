import { z } from 'zod';
import { storableRecord, text, uuid } from '../../kernel/json/schemas.js';

/**
 * What an agent proposes (SPEC §1 (3)): `create`, `update`, `delete` or `log`, each with its target
 * (one id: the workspace for create and log, the artifact for update and delete), its payload and a
 * rationale. The agent only proposes; the invocation decides whether anything is applied.
 */
const rationale = z.string().trim().min(1, 'must say why').max(2000);
const mimeLike = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*(\s*;.*)?$/i;
const context = storableRecord(z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'context keys are letters, digits, _ and -'));

export const proposedAction = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('create'),
    target: uuid().describe('The workspace the new artifact goes into.'),
    payload: z.strictObject({
      title: text(z.string().trim().min(1).max(500)),
      content_type: text(z.string().max(255).regex(mimeLike, 'must be a MIME type such as text/markdown')),
      content: text(),
      context: context.optional(),
    }),
    rationale,
  }),
  z.strictObject({
    kind: z.literal('update'),
    target: uuid().describe('The workspace artifact to change.'),
    payload: z
      .strictObject({
        title: text(z.string().trim().min(1).max(500)).optional(),
        content: text().optional(),
        context: context.optional().describe('Keys set on the context; other keys stay.'),
      })
      .refine((p) => Object.keys(p).length > 0, 'must change at least one of title, content, context'),
    rationale,
  }),
  z.strictObject({
    kind: z.literal('delete'),
    target: uuid().describe('The workspace artifact to delete.'),
    payload: z.strictObject({}).default({}),
    rationale,
  }),
  z.strictObject({
    kind: z.literal('log'),
    target: uuid().describe('The workspace the note is about.'),
    payload: z.strictObject({ message: text(z.string().trim().min(1).max(4000)), level: z.enum(['info', 'warning']).default('info') }),
    rationale,
  }),
]);
export type ProposedAction = z.infer<typeof proposedAction>;
export type ActionKind = ProposedAction['kind'];
export const actionKinds = ['create', 'update', 'delete', 'log'] as const satisfies readonly ActionKind[];

/**
 * - proposed: awaiting a decision (preview) or about to be applied
 * - refused: never applicable (outside the workspace, a platform type, no permission); never applied
 * - applied / conflict (the target changed since it was proposed) / discarded / skipped (not chosen)
 */
export type ActionStatus = 'proposed' | 'refused' | 'applied' | 'conflict' | 'discarded' | 'skipped';

/** An action as an invocation records it: the proposal, its id in the invocation, and what became of it. */
export type RecordedAction = ProposedAction & {
  id: string;
  status: ActionStatus;
  /** The target's revision when proposed: an update or delete applies only to that revision. */
  base_revision?: number;
  reason?: string;
  /** The artifact created, updated or deleted. */
  artifact_id?: string;
};

/** An action's outcome when applied. */
export interface ActionOutcome {
  id: string;
  status: Extract<ActionStatus, 'applied' | 'conflict' | 'refused'>;
  artifact_id?: string;
  reason?: string;
}

/** The ids of actions in an invocation: a1, a2, … in proposal order. */
export const actionId = (index: number) => `a${index + 1}`;
