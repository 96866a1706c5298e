#!/usr/bin/env node
// note-type-server: an example content-type server for the platform.
//
// It ships the definition of `application/vnd.example.note+json` as an MCP resource
// (type://note/type.json) and implements the lifecycle tools the platform calls by name:
// on_create, extract_text and summarize. It deliberately does NOT implement `on_open`:
// the platform must notice the tool is absent and skip that hook silently.
//
// It also ships a viewer (SPEC §2.10, §4.7): `ui://note-type-server/note.html`, an MCP Apps page that
// shows a note and calls `describe_note` through its host. When the platform forwards that call with
// a delegation token (§5.7), the tool verifies it against the platform's JWKS and names the person.
//
// Run: node examples/note-type-server/server.mjs          (speaks MCP over stdio)
//      node examples/note-type-server/server.mjs --http   (streamable HTTP at http://127.0.0.1:$PORT/mcp)
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { verifyDelegation } from './delegation.mjs';
import { VIEWER_HTML, VIEWER_URI } from './viewer.mjs';

const MIME = 'application/vnd.example.note+json';
const TOOL_META = { icon: '🗒️' };

const TYPE_DEFINITION = {
  mime: MIME,
  version: 1,
  inherits: ['application/json', 'text/markdown'],
  description: 'A short note: a heading, a markdown body and a list of tags.',
  ui: { label: 'Note', icon: '🗒️', color: '#f5c542', viewer: 'note' },
};

// Every lifecycle tool receives the artifact; unknown keys are kept, not rejected.
const artifactSchema = z.looseObject({
  id: z.string().optional(),
  title: z.string().optional(),
  content_type: z.string().optional(),
  content: z.string().describe(`JSON-encoded ${MIME} document`),
  context: z.record(z.string(), z.unknown()).optional(),
  collection_id: z.string().optional(),
});

/** Parses artifact content; returns { note } or { error } with a human-readable reason. */
function parseNote(content) {
  let note;
  try {
    note = JSON.parse(content);
  } catch (err) {
    return { error: `content is not valid JSON: ${err.message}` };
  }
  if (note === null || typeof note !== 'object' || Array.isArray(note)) {
    return { error: 'content must be a JSON object like {"heading", "body", "tags"}' };
  }
  if (typeof note.body !== 'string' || note.body.trim() === '') {
    return { error: 'note is missing a non-empty string "body"' };
  }
  if (note.tags !== undefined && !Array.isArray(note.tags)) {
    return { error: '"tags" must be an array of strings when present' };
  }
  return { note };
}

/** Wraps a tool handler: parses the note, or answers with an isError result naming the reason. */
const withNote = (handler) => async (args) => {
  const { note, error } = parseNote(args.artifact.content);
  return error ? { isError: true, content: [{ type: 'text', text: error }] } : handler(note, args);
};

/** Lowercased, trimmed, de-duplicated and sorted tags. */
const normaliseTags = (tags = []) =>
  [...new Set(tags.filter((t) => typeof t === 'string').map((t) => t.trim().toLowerCase()))].filter(Boolean).sort();

/** Strips common inline/heading markdown syntax, leaving readable text. */
function stripMarkdown(md) {
  return md
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // [text](url) and images -> text
    .replace(/`([^`]*)`/g, '$1') // inline code
    .replace(/^\s{0,3}#{1,6}\s+/gm, '') // ATX headings
    .replace(/\*\*(.+?)\*\*|\*(.+?)\*/g, '$1$2') // *emphasis* / **strong**
    .replace(/(^|\W)__?(.+?)__?(?!\w)/g, '$1$2') // _emphasis_ / __strong__, not snake_case
    .replace(/[ \t]+$/gm, '')
    .trim();
}

const headingOf = (note) =>
  typeof note.heading === 'string' && note.heading.trim() ? note.heading.trim() : stripMarkdown(note.body.trim().split('\n')[0]);

/** Whole sentences of `text` that fit in `max` chars; else cut on a word boundary with "…". */
function truncate(text, max) {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const sentences = flat.match(/[^.!?]+[.!?]+(\s|$)/g) ?? [];
  let out = '';
  for (const s of sentences) {
    if ((out + s).trim().length > max) break;
    out += s;
  }
  if (out.trim()) return out.trim();
  const cut = flat.slice(0, Math.max(1, max - 1));
  const space = cut.lastIndexOf(' ');
  return `${(space > 0 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

/** One MCP server with the type, its viewer and its tools; over HTTP, one per request (stateless). */
function noteServer() {
  const server = new McpServer({ name: 'note-type-server', version: '1.0.0' });

  server.registerResource(
    'type.json',
    'type://note/type.json',
    { mimeType: 'application/json', description: `Type definition for ${MIME}` },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(TYPE_DEFINITION, null, 2) }],
    }),
  );

  server.registerTool(
    'on_create',
    {
      description: 'Validate a new note and return context to merge into the artifact.',
      inputSchema: { artifact: artifactSchema },
      outputSchema: { context: z.object({ word_count: z.number().int(), tags: z.array(z.string()), heading: z.string() }) },
      _meta: TOOL_META,
    },
    withNote((note) => {
      const words = stripMarkdown(note.body).split(/\s+/).filter(Boolean);
      const context = { word_count: words.length, tags: normaliseTags(note.tags), heading: headingOf(note) };
      return { content: [{ type: 'text', text: JSON.stringify({ context }) }], structuredContent: { context } };
    }),
  );

  server.registerTool(
    'extract_text',
    {
      description: 'Plain text of a note for search indexing (heading, stripped body, tags).',
      inputSchema: { artifact: artifactSchema },
      outputSchema: { text: z.string() },
      _meta: TOOL_META,
    },
    withNote((note) => {
      const tags = normaliseTags(note.tags);
      const parts = [headingOf(note), stripMarkdown(note.body), tags.length ? `tags: ${tags.join(', ')}` : ''];
      const text = parts.filter(Boolean).join('\n\n');
      return { content: [{ type: 'text', text }], structuredContent: { text } };
    }),
  );

  server.registerTool(
    'summarize',
    {
      description: 'Short summary of a note: its heading plus the opening of the body.',
      inputSchema: { artifact: artifactSchema, max_chars: z.number().int().positive().default(200) },
      outputSchema: { summary: z.string() },
      _meta: TOOL_META,
    },
    withNote((note, { max_chars }) => {
      // Markdown heading lines are titles, not prose: leave them out of the sentences.
      const prose = stripMarkdown(note.body.replace(/^\s{0,3}#{1,6}\s.*$/gm, ''));
      const summary = prose ? `${headingOf(note)}: ${truncate(prose, max_chars)}` : headingOf(note);
      return { content: [{ type: 'text', text: summary }], structuredContent: { summary } };
    }),
  );

  server.registerResource(
    'note viewer',
    VIEWER_URI,
    { mimeType: 'text/html;profile=mcp-app', description: `Viewer for ${MIME} (MCP Apps)` },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/html;profile=mcp-app', text: VIEWER_HTML }] }),
  );

  server.registerTool(
    'describe_note',
    {
      description: 'Counts of a note, and who asked: the person named by a verified platform delegation token, if one came with the call.',
      inputSchema: { artifact: artifactSchema },
      outputSchema: {
        words: z.number().int(),
        tags: z.number().int(),
        caller: z.object({
          verified: z.boolean(),
          person: z.string().optional(),
          actor: z.string().optional(),
          reason: z.string().optional(),
        }),
      },
      _meta: TOOL_META,
    },
    async (args, extra) => {
      const { note, error } = parseNote(args.artifact.content);
      if (error) return { isError: true, content: [{ type: 'text', text: error }] };
      const caller = await verifyDelegation(extra._meta);
      const result = { words: stripMarkdown(note.body).split(/\s+/).filter(Boolean).length, tags: normaliseTags(note.tags).length, caller };
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    },
  );

  // on_open is intentionally not registered; see the header comment.
  return server;
}

if (process.argv.includes('--http')) {
  // Loaded only here: the HTTP transport's dependencies need memory that the platform's stdio sandbox does not give.
  const { createServer } = await import('node:http');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const http = createServer(async (req, res) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp') return void res.writeHead(404).end();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close());
    await noteServer().connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    process.stdout.write(`note-type-server listening on http://127.0.0.1:${http.address().port}/mcp\n`);
  });
} else {
  await noteServer().connect(new StdioServerTransport());
}
