import { z } from 'zod';
import { eventKinds } from '../../events/types.js';
import type { Principal } from '../../identity/principal.js';
import { problems } from '../../kernel/errors/problem.js';

/** `application/vnd.platform.automation+json` (issue #21, SPEC §6.1): when a workspace event matches, run something as its creator. */
export const automationType = 'application/vnd.platform.automation+json';

const uuid = z.uuid({ error: 'must be a UUID' });
const mimePattern = z
  .string()
  .max(255)
  .regex(/^(\*|\*\/\*|[a-z0-9][a-z0-9!#$&^_.+-]*\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]*))$/i, 'must be a MIME type, type/* or *');
const params = z.record(z.string(), z.unknown()).default({});
const input = z.string().trim().min(1).max(20_000).optional().describe('Free text for the run, as {{input}} / the instruction.');

/** A built-in agent (name or id, GET /agents) over the event's artifact (or the workspace's drafts), in preview or apply mode. */
const agentRun = z.strictObject({
  agent: z.string().min(1).max(64),
  params,
  input,
  artifacts: z
    .enum(['event', 'workspace'])
    .default('event')
    .describe("event: the artifact the event is about; workspace: the workspace's drafts."),
});
/** A transform of the workspace, with the event's artifact as its input artifact. */
const transformRun = z.strictObject({ transform: uuid, input });
/** A tool of an MCP server registered in the workspace; `{{event.<field>}}` in the arguments is filled in. */
const toolRun = z.strictObject({
  tool: z.strictObject({ server_id: uuid, name: z.string().min(1).max(256), arguments: params }),
});

export function automationContent(knownAgents: ReadonlySet<string>) {
  return z
    .strictObject({
      description: z.string().max(4000).optional(),
      enabled: z.boolean().default(true),
      on: z.strictObject({
        kinds: z.array(z.enum(eventKinds)).min(1).max(eventKinds.length),
        content_types: z.array(mimePattern).min(1).max(50).optional(),
      }),
      run: z.union([agentRun, transformRun, toolRun], {
        error: 'must be one of {agent, …}, {transform, …} or {tool: {server_id, name, arguments}}',
      }),
      mode: z.enum(['preview', 'apply']).default('preview'),
    })
    .superRefine((a, ctx) => {
      if ('agent' in a.run) {
        if (!knownAgents.has(a.run.agent))
          ctx.addIssue({
            code: 'custom',
            path: ['run', 'agent'],
            message: `is not a known agent (${[...knownAgents].filter((n) => !uuid.safeParse(n).success).join(', ')})`,
          });
        if (a.run.artifacts === 'event' && a.on.kinds.includes('artifact_deleted'))
          ctx.addIssue({
            code: 'custom',
            path: ['run', 'artifacts'],
            message: 'a deleted artifact cannot be the context: use "workspace" with artifact_deleted',
          });
      } else if (a.mode === 'preview') {
        const why =
          'transform' in a.run ? 'a transform applies as it runs (add an approval step to review)' : 'a tool call is made, not proposed';
        ctx.addIssue({ code: 'custom', path: ['mode'], message: `must be "apply": ${why}` });
      }
    });
}
export type AutomationContent = z.output<ReturnType<typeof automationContent>>;

/**
 * An automation later acts unattended as the person who wrote it, with all of that person's scopes:
 * so only that person, with their own sign-in, writes its content. An API key, a server credential
 * or an OAuth client limited to fewer scopes cannot make one that would act beyond them.
 */
export function requireAutomationAuthor(principal: Principal): void {
  if (principal.actor.kind !== 'user' || principal.onBehalfOf)
    throw problems.forbidden(
      `An automation runs as the person who wrote it, with all their permissions: write ${automationType} content with your own sign-in, not a ${principal.actor.kind.replace('_', ' ')}.`,
    );
}
