import { z } from 'zod';

/** Commands a stdio MCP server may be started with (SPEC §2.3 rule 1, §8). */
export const allowedStdioCommands = ['npx', 'uvx', 'python', 'python3', 'node', 'deno'] as const;
type StdioCommand = (typeof allowedStdioCommands)[number];

/**
 * Options that turn an allowed runner into "run this code" (docs/decisions.md, "MCP client"): inline
 * code, preloaded modules, interactive shells, debuggers. Refused anywhere in `args`, also as
 * `--flag=value`, because the runners pass unknown options on to the program they start.
 */
const inlineCodeOptions = ['-c', '--call', '-e', '--eval', '--print', '--require', '--import', '--loader', '--experimental-loader', '--inspect', '--inspect-brk', '--inspect-wait', '--env-file', '--env-file-if-exists', '--shell'];
const runnerOptions: Record<StdioCommand, string[]> = {
  node: ['-p', '-r', '-i', '--interactive', '--input-type', '-'],
  deno: ['eval', 'repl', '-'],
  python: ['-i', '-'],
  python3: ['-i', '-'],
  npx: ['--node-options', '--script-shell'],
  uvx: [],
};

/**
 * Environment variables that change which code a runner loads (preloads, module paths, package
 * manager configuration, the search path for the command itself). Matched case-insensitively; a name
 * ending in `*` is a prefix.
 */
export const refusedEnv = ['PATH', 'HOME', 'SHELL', 'BASH_ENV', 'ENV', 'NODE_OPTIONS', 'NODE_PATH', 'NODE_REPL_EXTERNAL_MODULE', 'LD_*', 'DYLD_*', 'PYTHON*', 'NPM_CONFIG_*', 'UV_*', 'PIP_*', 'DENO_*', 'PERL5OPT', 'RUBYOPT'];

function isRefusedEnv(name: string): boolean {
  const upper = name.toUpperCase();
  return refusedEnv.some((r) => (r.endsWith('*') ? upper.startsWith(r.slice(0, -1)) : upper === r));
}

/** The letters of a grouped short option, up to one that takes the rest as its value (`-mpkg`, `-Wignore`). */
function groupedFlags(arg: string): string[] {
  const flags: string[] = [];
  for (const c of arg.slice(1)) {
    flags.push(`-${c}`);
    if ('mWX'.includes(c)) break;
  }
  return flags;
}

/**
 * Why an argument is refused for this command, or null. Short options are checked letter by letter,
 * since runners accept them grouped (`-pe`, `-Bc`) and with the value attached (`-cCODE`).
 */
export function refusedArgument(command: StdioCommand, arg: string): string | null {
  const flags = arg.startsWith('--') ? [arg.split('=')[0]!] : /^-[A-Za-z]{2,}/.test(arg) ? groupedFlags(arg) : [arg];
  for (const flag of flags) {
    if (inlineCodeOptions.includes(flag)) return `${flag} would let ${command} run code that is not a server package or file`;
    if (runnerOptions[command].includes(flag)) return `${flag} is refused for ${command}: it runs code from the command line, stdin or a prompt`;
  }
  return null;
}

const httpTransport = z
  .strictObject({
    type: z.literal('http'),
    /** §2.9 discovery document; the MCP endpoint is resolved from its `endpoints.streamable_http`. */
    well_known: z.url({ protocol: /^https?$/ }).optional(),
    /** The MCP endpoint itself, for servers that publish no discovery document (docs/decisions.md). */
    url: z.url({ protocol: /^https?$/ }).optional(),
  })
  .refine((t) => (t.well_known === undefined) !== (t.url === undefined), { message: 'give exactly one of well_known (discovery document) or url (the MCP endpoint)', path: ['well_known'] });

/** An env value held as a stored secret (POST /secrets), resolved only when the server is started. */
export const secretRef = z.strictObject({ secret_id: z.uuid({ error: 'must be a secret id (UUID)' }) });

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
  .refine((name) => !isRefusedEnv(name), { message: 'may not be set for a stdio server: it changes which code the runner loads' });

const stdioTransport = z
  .strictObject({
    type: z.literal('stdio'),
    command: z.enum(allowedStdioCommands, { error: `must be one of ${allowedStdioCommands.join(', ')}` }),
    args: z.array(z.string().max(4096)).max(64).default([]),
    env: z.record(envName, z.union([z.string(), secretRef])).default({}),
  })
  .superRefine((t, ctx) => {
    t.args.forEach((arg, i) => {
      const reason = refusedArgument(t.command, arg);
      if (reason) ctx.addIssue({ code: 'custom', path: ['args', i], message: reason });
    });
  });

const header = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'must be an HTTP header name');

const auth = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('oauth2'), authorizer_id: z.uuid() }),
  z.strictObject({ type: z.literal('api_key'), secret_id: z.uuid({ error: 'must be a secret id (UUID)' }), header }),
  z.strictObject({ type: z.literal('static'), header, value: z.string().min(1) }),
]);

/** `content` of an `application/vnd.platform.mcp-server+json` artifact (SPEC §2.3). */
export const mcpServerContent = z.strictObject({
  transport: z.discriminatedUnion('type', [httpTransport, stdioTransport]),
  notes: z.string().optional(),
  auth: auth.optional(),
  /** How long a tool call may go without an answer or a progress notification (docs/decisions.md). */
  timeout_seconds: z.int().min(1).max(3600).optional(),
});
export type McpServerContent = z.infer<typeof mcpServerContent>;
export type StdioTransport = z.infer<typeof stdioTransport>;
export type HttpTransport = z.infer<typeof httpTransport>;
