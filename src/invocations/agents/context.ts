import type { ExternalServers } from '../../mcp-client/external.js';
import { lifecycleArguments, lifecycleServer, resultText } from '../../mcp-client/lifecycle.js';
import type { ArtifactDoc } from '../../store/artifacts.js';
import type { McpCatalogStore } from '../../store/mcp-catalog.js';

/** Characters per token, roughly, for English text and the models in use. */
const charsPerToken = 4;

export interface ContextSources {
  catalog: McpCatalogStore;
  external: ExternalServers;
  maxCallMs: number;
}

/**
 * The artifacts as model context within `tokens`: each gets an equal share. One longer than its
 * share is condensed by its content-type server's `summarize` (§4.6) when the workspace has one
 * that implements it, else cut (said so in the text). A summarize that fails falls back to the cut.
 */
export async function buildContext(docs: ArtifactDoc[], workspaceId: string, tokens: number, sources: ContextSources): Promise<string> {
  if (docs.length === 0) return '(no artifacts)';
  const share = Math.max(200, Math.floor((tokens * charsPerToken) / docs.length));
  const parts: string[] = [];
  for (const doc of docs) {
    let text = doc.content;
    let note = '';
    if (text.length > share) {
      const summary = await summarized(doc, workspaceId, sources);
      if (summary) [text, note] = [summary, ' (summary)'];
      if (text.length > share) [text, note] = [`${text.slice(0, share)}\n[…cut at ${share} of ${text.length} characters]`, note];
    }
    parts.push(`--- artifact ${doc._id} "${doc.title}" (${doc.content_type})${note} ---\n${text}`);
  }
  return parts.join('\n\n');
}

async function summarized(doc: ArtifactDoc, workspaceId: string, sources: ContextSources): Promise<string | null> {
  const serverId = await lifecycleServer(sources.catalog, workspaceId, doc.content_type, 'summarize');
  if (!serverId) return null;
  try {
    const result = await sources.external.callTool(serverId, 'summarize', lifecycleArguments(doc), { maxTotalMs: sources.maxCallMs });
    return result.isError ? null : resultText(result, 'summary') || null;
  } catch {
    return null;
  }
}
