import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { platformIcon, platformInfo } from '../kernel/platform-info.js';
import { published } from './schemas.js';
import { tools, type ToolDef } from './tools.js';
import { toolAppMeta } from './apps.js';

/** §2.12: the platform's own items carry the `platform` icon marker unless they name their own. */
export const serverIcon = 'platform';

/**
 * The server's identity, as initialize announces it and as a 2026-07-28 result names it in
 * `_meta["io.modelcontextprotocol/serverInfo"]`. One object for every request: nothing writes to it.
 */
export const serverInfo = Object.freeze({
  ...platformInfo,
  icons: [{ src: platformIcon, mimeType: 'image/svg+xml' }],
  _meta: { icon: serverIcon },
}) as typeof platformInfo;

/** The JSON Schema dialect the SDK converts tool schemas to. */
const jsonSchemaTarget = 'draft-2020-12';

/** One tool as every request publishes and calls it, built once per process: it holds no caller's state. */
export interface PublishedTool {
  def: ToolDef;
  input: StandardSchemaWithJSON;
  output?: StandardSchemaWithJSON;
  /** `icons` in the protocol's field: the emoji drawn in an SVG data URI. */
  icons: { src: string; mimeType: string; sizes: string[] }[];
  /** The tool's `_meta` in tools/list: its icon marker, its scope, and its MCP App where it has one (apps.ts). */
  meta: Record<string, unknown>;
  /**
   * Whether a tools/call may be answered without the SDK's per-request server (tool-call.ts): no
   * argument is mirrored in an HTTP header (`x-mcp-header`, which the SDK checks before dispatch).
   */
  direct: boolean;
}

/**
 * A tool's icon in the protocol's `icons` field: its emoji drawn in an SVG data URI, so clients that
 * show icons fetch nothing from anywhere (the emoji stays in `_meta.icon` for the platform's catalog).
 */
function toolIcon(emoji: string): { src: string; mimeType: string; sizes: string[] } {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><text x="16" y="25" font-size="24" text-anchor="middle">${emoji}</text></svg>`;
  return { src: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`, mimeType: 'image/svg+xml', sizes: ['any'] };
}

function publish(def: ToolDef): PublishedTool {
  const input = published(def.input);
  let direct: boolean | undefined;
  return {
    def,
    input,
    ...(def.output ? { output: published(def.output) } : {}),
    icons: [toolIcon(def.icon)],
    meta: { icon: def.icon, scope: def.access, ...toolAppMeta(def) },
    get direct() {
      direct ??= !JSON.stringify(input['~standard'].jsonSchema.input({ target: jsonSchemaTarget })).includes('"x-mcp-header"');
      return direct;
    },
  };
}

/** Every tool, published once per process (their JSON Schemas are converted on first use, then kept). */
export const toolTable: ReadonlyMap<string, PublishedTool> = new Map(tools.map((t) => [t.name, publish(t)]));
