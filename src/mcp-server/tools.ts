import { z } from 'zod';
import { artifactSchema, commitPreviewSchema, presentArtifact, presentContainer } from '../presenters/index.js';
import {
  artifactFields,
  changesSomething,
  changesSomethingMessage,
  createArtifact,
  createArtifactInput,
  updateArtifact,
  visibleArtifact,
  type artifactPatchInput,
} from '../operations/artifacts.js';
import { commitBody, previewBody, previewCommit, requestCommit } from '../operations/commits.js';
import { listContainers, visibleContainer } from '../operations/containers.js';
import { containerArtifacts } from '../operations/artifact-list.js';
import type { OperationContext } from '../operations/services.js';
import { manageArtifact, manageBody } from '../operations/manage.js';
import { runSearch, searchBody } from '../operations/search.js';
import { ask, askInput } from '../operations/ask.js';
import { invokeAgent } from '../operations/agent-runs.js';
import { agentByName } from '../invocations/agents/registry.js';
import { extractParams } from '../invocations/agents/builtin/extract.js';
import type { ContainerKind } from '../store/containers.js';
import { stateOf, type ArtifactDoc } from '../store/artifacts.js';
import type { Page } from '../store/pagination.js';
import { uuid } from '../kernel/json/schemas.js';
import { consoleCommitPage } from './console-links.js';
import { importDocument, importUrl } from '../imports/request.js';
import { listImportItems, requestImport, visibleImport } from '../operations/imports.js';
import { importItemSchema, importSchema, presentImport, presentImportItem } from '../presenters/imports.js';
import { agentRunSchema, toolCallSchema } from '../presenters/invocations.js';
import { isConnected, relayStatuses } from '../operations/relay.js';
import { callTool, callToolBody } from '../operations/mcp-servers.js';
import { baseType, mcpServerType } from '../artifacts/content-types/index.js';
import { problems } from '../kernel/errors/problem.js';
import { hostStatusSchema, presentHostStatus } from '../presenters/relay.js';
import { readOnly, writes, type ToolDef } from './tool-def.js';
import { chatTools } from './type-tools/chat.js';
import { viewTools } from './type-tools/view.js';
import { streamTools } from './type-tools/stream.js';

export { missingScope, readOnly, writes, type ToolDef } from './tool-def.js';

type ImportLists = { items?: z.infer<typeof importDocument>[]; urls?: z.infer<typeof importUrl>[] };

const extractInput = z.strictObject({
  artifact_ids: z.array(uuid()).min(1).max(50).describe('The source artifacts.'),
  schema: extractParams.shape.schema,
  instructions: z.string().trim().min(1).max(4000).optional().describe('What to look for, beyond the schema.'),
  title: extractParams.shape.title,
  workspace_id: uuid().optional().describe("Where the new artifact is proposed; the first source's workspace, else yours."),
});

/** Artifacts a browse or resource read lists per container at most; the answer says when it cut. */
export const artifactListBound = 50;

function artifactsOf(page: Page<ArtifactDoc>) {
  return {
    artifacts: page.items.map((a) => ({ id: a._id, title: a.title, content_type: a.content_type, state: stateOf(a) })),
    artifacts_truncated: page.next_cursor !== null,
    artifacts_bound: artifactListBound,
  };
}

/** A container with its first artifacts, as resources show it. */
export async function containerWithArtifacts(ctx: OperationContext, kind: ContainerKind, id: string) {
  const doc = await visibleContainer(ctx, kind, id);
  return { ...presentContainer(doc), ...artifactsOf(await containerArtifacts(ctx, doc, artifactListBound)) };
}

const browseInput = z.strictObject({
  with_artifacts: z.boolean().default(false).describe(`Include each one's first ${artifactListBound} artifacts (id, title, type).`),
  limit: z.int().min(1).max(100).default(50),
  cursor: z.string().min(1).optional().describe('next_cursor of the previous call, for the next page.'),
});

function browse(kind: ContainerKind) {
  return async (ctx: OperationContext, input: z.infer<typeof browseInput>) => {
    const page = await listContainers(ctx, kind, input.limit, input.cursor);
    const items = await Promise.all(
      page.items.map(async (c) =>
        input.with_artifacts
          ? { ...presentContainer(c), ...artifactsOf(await containerArtifacts(ctx, c, artifactListBound)) }
          : presentContainer(c),
      ),
    );
    return { items, next_cursor: page.next_cursor, truncated: page.next_cursor !== null };
  };
}

const searchOutput = z.looseObject({
  query: z.string(),
  results: z.array(
    z.looseObject({
      id: z.string(),
      title: z.string(),
      content_type: z.string(),
      container: z.object({ kind: z.string(), id: z.string() }),
      score: z.number(),
    }),
  ),
});
const browseOutput = z.object({
  items: z.array(z.looseObject({ id: z.string(), name: z.string() })),
  next_cursor: z.string().nullable(),
  truncated: z.boolean(),
});
const manageOutput = z.object({
  action: z.enum(['archive', 'unarchive', 'revert', 'delete']),
  state: z.enum(['draft', 'archived', 'committed', 'deleted']),
  artifact: z.looseObject({ id: z.string() }).nullable(),
});
/**
 * commit_workspace's answer: the proposal (status awaiting_human_approval, with how a person approves
 * it), or, as a task's final result (mcp-server/tasks), how the commit ended, with the decision and the
 * versions written. One schema for both: a client checks a task's result against the tool's.
 */
const proposalOutput = z.object({
  status: z.enum(['awaiting_human_approval', 'committed', 'rejected', 'expired', 'failed']),
  commit_id: z.string(),
  state: z.string(),
  preview: z.looseObject({ counts: z.object({ new: z.number(), modified: z.number(), unchanged: z.number() }) }).nullable(),
  review: z.string(),
  approve: z.string().optional(),
  decision: z
    .looseObject({ action: z.enum(['approve', 'reject']), by: z.string(), comment: z.string().nullable() })
    .nullable()
    .optional(),
  results: z
    .array(z.looseObject({ artifact_id: z.string(), version: z.number() }))
    .nullable()
    .optional(),
});

// The presenters' own schemas (test/contract checks REST answers against them), each copied into a
// schema of its own: a presenter's is named (`Artifact`), and a named schema is published as a `$ref`,
// where MCP wants an object at the root of an output schema.
const artifactOutput = artifactSchema.extend({});
const importOutput = importSchema.extend({});

/** `ask`: the answer (or the passages in its place), or, while the model still works, where to poll. Open: ask grows. */
const askOutput = z.looseObject({
  question: z.string(),
  mode: z.enum(['none', 'extractive', 'llm']),
  answer: z.string().nullable().optional().describe("The model's answer; null when there is none; absent while it runs."),
  note: z.string().optional().describe('Why the answer is passages (mode none or extractive).'),
  citations: z.array(z.string()).optional().describe('The artifacts the answer rests on.'),
  status: z.literal('running').optional(),
  invocation_id: z.string().optional(),
  poll: z.string().optional(),
  chat_id: z.string().optional().describe('With chat_id: the chat the question and its answer were added to.'),
  turn_id: z.string().optional().describe('With chat_id: the turn (poll GET /artifacts/{chat_id}/turns/{turn_id} while it runs).'),
  revision: z.number().optional().describe("With chat_id: the chat's revision that holds the turn."),
  passages: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      container: z.object({ kind: z.string(), id: z.string() }),
      score: z.number(),
      passage: z.string(),
    }),
  ),
});

/** An agent run as REST answers it, or (still running past the wait) only where to poll it. */
const agentRunOutput = agentRunSchema.partial().required({ invocation_id: true, workflow_id: true, status: true, poll: true });

const workspaceScoped = { workspace_id: uuid().describe('The workspace whose drafts to commit.') };

/** extract_information: the extract agent in preview mode; its proposal once settled within the wait, else where to follow it. */
export async function extract(ctx: OperationContext, input: z.infer<typeof extractInput>, waitSeconds?: number) {
  const answer = await invokeAgent(ctx, agentByName('extract')!, {
    artifact_ids: input.artifact_ids,
    workspace_id: input.workspace_id,
    input: input.instructions,
    params: { schema: input.schema, ...(input.title ? { title: input.title } : {}) },
    mode: 'preview',
    ...(waitSeconds === undefined ? {} : { wait_seconds: waitSeconds }),
  });
  return answer.body;
}

/** SPEC §4.5: purposeful tools, never a mirror of raw CRUD, and no collection create or update. */
export const tools: ToolDef[] = [
  {
    name: 'search',
    title: 'Search the knowledge base',
    description:
      'Hybrid (keyword + semantic) search across every workspace and collection you may search. Returns ranked artifact ids, titles and types; read one with get_artifact.',
    access: 'search:read',
    alsoNeeds: ['artifact:read'],
    input: searchBody,
    output: searchOutput,
    annotations: readOnly,
    icon: '🔎',
    run: (ctx, input: z.infer<typeof searchBody>) => runSearch(ctx, input),
  },
  {
    name: 'get_artifact',
    title: 'Read an artifact',
    description: 'Returns one artifact by id: title, content type, content, context, state and provenance.',
    access: 'artifact:read',
    input: z.strictObject({ id: uuid().describe('The artifact id.') }),
    output: artifactOutput,
    annotations: readOnly,
    icon: '📄',
    run: async (ctx, input: { id: string }) => presentArtifact((await visibleArtifact(ctx, input.id)).doc),
  },
  {
    name: 'browse_collections',
    title: 'List collections',
    description: 'Lists the collections (versioned, committed knowledge) you can access, optionally with their artifacts.',
    access: 'artifact:read',
    input: browseInput,
    output: browseOutput,
    annotations: readOnly,
    icon: '📚',
    run: browse('collection'),
  },
  {
    name: 'browse_workspaces',
    title: 'List workspaces',
    description: 'Lists the workspaces (draft staging areas) you can access, optionally with their artifacts.',
    access: 'artifact:read',
    input: browseInput,
    output: browseOutput,
    annotations: readOnly,
    icon: '🗂️',
    run: browse('workspace'),
  },
  {
    name: 'ask',
    title: 'Ask the knowledge base',
    description:
      'Answers a question from the knowledge base: hybrid search, then an answer grounded in the hits that cites them by artifact id. With no language model configured, answers with the top passages and says so (mode "extractive"). Without chat_id it writes nothing. With chat_id (a chat artifact in a workspace you may edit; needs artifact:write) the question and its answer are added to that chat as its next revision, and earlier turns inform the answer: the only write this tool makes, which is why it is not marked read-only.',
    access: 'search:read',
    alsoNeeds: ['artifact:read'],
    input: askInput,
    output: askOutput,
    // Not read-only: with chat_id it adds a turn to the chat (a new revision: additive, not idempotent).
    // Honest over convenient (docs/decisions.md, "Chat"): a client that runs read-only tools unasked
    // would otherwise let a model write chat turns unasked.
    annotations: writes(false, false),
    icon: '💬',
    run: (ctx, input: z.infer<typeof askInput>) => ask(ctx, input),
  },
  {
    name: 'create_artifact',
    title: 'Create a draft',
    description:
      'Creates an artifact in a workspace (your default workspace when collection_id is left out). Collections change only through reviewed commits.',
    access: 'artifact:write',
    input: createArtifactInput,
    output: artifactOutput,
    annotations: writes(false, false),
    icon: '✏️',
    // A collection's id is refused by createArtifact itself (collection-write-requires-commit), as over REST.
    run: async (ctx, input: z.infer<typeof createArtifactInput>) => presentArtifact(await createArtifact(ctx, input)),
  },
  {
    name: 'update_artifact',
    title: 'Update a draft',
    description: 'Changes the title, content type, content or context of a workspace draft.',
    access: 'artifact:write',
    // The same field schemas as PATCH /artifacts/{id}, plus the id.
    input: z
      .strictObject({
        id: uuid().describe('The draft to change.'),
        ...artifactFields,
        revision: z
          .int()
          .min(1)
          .max(Number.MAX_SAFE_INTEGER)
          .describe(
            'The revision you read: the change applies only if the draft is still at it (else an error naming the current revision). Leave out to change whatever revision is current.',
          ),
      })
      .partial({ title: true, content_type: true, content: true, context: true, revision: true })
      .refine(({ id: _id, revision: _r, ...patch }) => changesSomething(patch), changesSomethingMessage),
    output: artifactOutput,
    annotations: writes(false, false),
    icon: '🖊️',
    run: async (ctx, { id, revision, ...patch }: { id: string; revision?: number } & z.infer<typeof artifactPatchInput>) =>
      presentArtifact(await updateArtifact(ctx, id, patch, revision === undefined ? undefined : [revision])),
  },
  {
    name: 'manage_artifact',
    title: 'Archive, unarchive, revert or delete a draft',
    description:
      'archive hides a draft from search and commits; unarchive brings it back; revert restores its last committed version; delete removes the draft (its committed versions stay).',
    access: 'artifact:manage',
    input: manageBody.safeExtend({ id: uuid().describe('The workspace draft.') }),
    output: manageOutput,
    annotations: writes(true, true),
    icon: '🗄️',
    run: (ctx, input: { id: string; action: z.infer<typeof manageBody>['action'] }) => manageArtifact(ctx, input.id, input.action),
  },
  {
    name: 'extract_information',
    title: 'Extract structured information',
    description:
      'Extracts information from source artifacts into JSON that satisfies the JSON Schema you give, with a language model. The result is proposed as a new application/json draft: apply it with POST /invocations/{invocation_id}/apply, or discard it.',
    access: 'artifact:invoke',
    input: extractInput,
    output: agentRunOutput,
    annotations: writes(false, false),
    icon: '🧪',
    run: (ctx, input: z.infer<typeof extractInput>) => extract(ctx, input),
  },
  {
    name: 'commit_preview',
    title: 'Preview a commit',
    description:
      "Read-only: what committing a workspace's drafts into a collection would change (new, modified with a diff, unchanged), and the version each becomes.",
    access: 'artifact:read',
    input: previewBody.safeExtend(workspaceScoped),
    output: commitPreviewSchema.extend({}),
    annotations: readOnly,
    icon: '🔍',
    run: (ctx, { workspace_id, ...body }: { workspace_id: string } & z.infer<typeof previewBody>) => previewCommit(ctx, workspace_id, body),
  },
  {
    name: 'commit_workspace',
    title: 'Propose a commit for human approval',
    description:
      'Proposes committing workspace drafts into a collection. Nothing is committed until a person approves it; the answer says where.',
    access: 'artifact:write',
    input: commitBody.safeExtend({
      ...workspaceScoped,
      idempotency_key: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe('Send the same key when retrying: the same commit is answered, never a second one.'),
    }),
    output: proposalOutput,
    annotations: writes(false, false),
    icon: '📥',
    run: async (
      ctx,
      { workspace_id, idempotency_key, ...body }: { workspace_id: string; idempotency_key?: string } & z.infer<typeof commitBody>,
    ) => {
      const { commit, counts } = await requestCommit(ctx, workspace_id, body, idempotency_key ?? null);
      // The console page under the base URL this client reached, path prefix included (api/public-url.ts decides which are ours).
      const page = consoleCommitPage(ctx.state.publicBase ?? ctx.services.config.apiUri, commit.id);
      return {
        status: 'awaiting_human_approval',
        commit_id: commit.id,
        state: commit.state,
        preview: counts ? { counts } : null,
        review: page,
        approve:
          `A person reviews and approves it at ${page}, signed in as themselves (agents cannot approve). ` +
          `Over REST: POST /commits/${commit.id}/approve with the person's own token.`,
      };
    },
  },
  {
    name: 'import_artifacts',
    title: 'Import many documents',
    description:
      'Brings many documents (and URLs of Markdown, text, HTML, PDF or JSON files) into a workspace as drafts, in a durable import. Each item key makes one artifact per workspace, however often it is imported. Answers the import at once; follow it with get_import.',
    access: 'artifact:write',
    input: z.strictObject({
      workspace_id: uuid().describe('The workspace the drafts go into.'),
      items: z.array(importDocument).max(5000).optional().describe('Documents, as create_artifact takes them, each with an optional key.'),
      urls: z
        .array(importUrl)
        .max(5000)
        .optional()
        .describe('Files to fetch (http or https), each with an optional key (default: the URL).'),
      idempotency_key: z.string().min(1).max(200).optional().describe('Send the same key when retrying: the same import is answered.'),
    }),
    output: importOutput,
    annotations: writes(false, true),
    icon: '📦',
    run: async (ctx, { workspace_id, idempotency_key, items, urls }: { workspace_id: string; idempotency_key?: string } & ImportLists) => {
      const raw = Buffer.from(JSON.stringify({ items: items ?? [], urls: urls ?? [] }));
      const body = { mediaType: 'application/json', contentType: 'application/json', raw };
      return presentImport((await requestImport(ctx, workspace_id, body, idempotency_key ?? null)).doc);
    },
  },
  {
    name: 'get_import',
    title: 'Follow an import',
    description: "An import's state and counts (done, created, skipped, failed, remaining), and its failed items' reasons.",
    access: 'artifact:read',
    input: z.strictObject({ import_id: uuid().describe('The import, as import_artifacts answered it.') }),
    output: importOutput.extend({
      failed_items: z.array(importItemSchema).describe('The first 20 failed items, with their reasons.'),
      more_failed: z.boolean(),
    }),
    annotations: readOnly,
    icon: '📊',
    run: async (ctx, { import_id }: { import_id: string }) => {
      const doc = presentImport(await visibleImport(ctx, import_id));
      const failed = await listImportItems(ctx, import_id, 'failed', 20);
      return { ...doc, failed_items: failed.items.map(presentImportItem), more_failed: failed.next_cursor !== null };
    },
  },
  {
    name: 'call_server_tool',
    title: 'Call a tool of a registered MCP server',
    description:
      "Calls a tool of an MCP server registered in a workspace you may invoke in (HTTP, a worker's sandboxed stdio server, or one on a host's desktop relay), as a durable invocation. Answers the invocation with the server's result, or, when it outlasts wait_seconds, its id to follow at GET /invocations/{id}.",
    access: 'artifact:invoke',
    input: z.strictObject({
      server_id: uuid().describe('The MCP server artifact (GET /mcp/servers lists them with their tools).'),
      name: callToolBody.shape.name.describe("The server's tool."),
      arguments: callToolBody.shape.arguments,
      wait_seconds: callToolBody.shape.wait_seconds,
    }),
    // The invocation as REST answers it; its `result` is the server's, open.
    output: toolCallSchema.extend({}),
    // The server may reach anything: the platform cannot promise what its tool does.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    icon: '🛠️',
    run: async (ctx, input: { server_id: string; name: string; arguments?: Record<string, unknown>; wait_seconds?: number }) => {
      const found = await visibleArtifact(ctx, input.server_id);
      if (baseType(found.doc.content_type) !== mcpServerType) throw problems.notFound('MCP server', input.server_id);
      const { server_id, ...body } = input;
      return (await callTool(ctx, server_id, { arguments: {}, ...body }, undefined, found)).body;
    },
  },
  {
    name: 'relay_status',
    title: 'Desktop relay status',
    description:
      "Every host you can see and its desktop relay: connected or not, last seen, relay version, the MCP servers it runs, and its recent errors (refusals by the person's local policy among them).",
    access: 'artifact:read',
    input: z.strictObject({ workspace_id: uuid().optional().describe("Only this workspace's hosts.") }),
    output: z.object({ hosts: z.array(hostStatusSchema) }),
    annotations: readOnly,
    icon: '📡',
    run: async (ctx, { workspace_id }: { workspace_id?: string }) => {
      const now = Date.now();
      const hosts = await relayStatuses(ctx, workspace_id);
      return {
        hosts: hosts.map(({ host, status }) => presentHostStatus(host, status, isConnected(status, now), ctx.state.principal.subject)),
      };
    },
  },
  ...chatTools,
  ...viewTools,
  ...streamTools,
];
