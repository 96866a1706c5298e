import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** Runners a catalog entry may name (SPEC §2.3 rule 1, §8). */
export const stdioRunners = ['npx', 'uvx', 'python', 'python3', 'node', 'deno'] as const;

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');
const placeholder = /\{([a-z][a-z0-9_]*)\}/g;

const parameter = z.strictObject({
  description: z.string().max(500).optional(),
  type: z.enum(['string', 'integer']).default('string'),
  /** The whole value must match (anchored here); a value never starts with `-`, whatever the pattern. */
  pattern: z.string().min(1).max(500),
  required: z.boolean().default(true),
});

const limits = z.strictObject({
  memory_mb: z.int().min(64).max(65_536).default(2048),
  processes: z.int().min(8).max(4096).default(256),
  cpu_seconds: z.int().min(1).max(86_400).default(3600),
  open_files: z.int().min(64).max(65_536).default(1024),
  tmp_mb: z.int().min(1).max(4096).default(64),
});

/**
 * One operator-approved launch (docs/decisions.md, "Threat model"): the runner, the pinned package,
 * the fixed arguments with `{param}` placeholders, the env the operator fixes, the env keys a
 * registration fills with stored secrets, and the sandbox's limits.
 */
export const catalogEntry = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'must be a lower-case id'),
    title: z.string().min(1).max(200),
    description: z.string().max(2000).optional(),
    command: z.enum(stdioRunners),
    /** Pinned, for the listing and checked against `args`: the launch must name exactly this version. */
    package: z.strictObject({ name: z.string().min(1), version: z.string().regex(/^[0-9A-Za-z.+-]+$/) }).optional(),
    args: z.array(z.string().max(4096)).max(64),
    /** Other exact argument lists that select this entry: registrations written before the catalog keep working. */
    aliases: z.array(z.array(z.string().max(4096)).max(64)).default([]),
    params: z.record(z.string().regex(/^[a-z][a-z0-9_]*$/), parameter).default({}),
    env: z.record(envName, z.string().max(4096)).default({}),
    secrets: z
      .record(envName, z.strictObject({ description: z.string().max(500).optional(), required: z.boolean().default(false) }))
      .default({}),
    /** Off by default: a sandboxed server sees no network at all, not even the worker's loopback. */
    network: z.boolean().default(false),
    limits: limits.default(() => limits.parse({})),
  })
  .superRefine((e, ctx) => {
    const used = new Set(e.args.flatMap((a) => [...a.matchAll(placeholder)].map((m) => m[1]!)));
    // One parameter per argument keeps matching a registration linear (two or more could backtrack for seconds).
    e.args.forEach(
      (a, i) =>
        [...a.matchAll(placeholder)].length > 1 &&
        ctx.addIssue({ code: 'custom', path: ['args', i], message: 'may hold one {param} at most' }),
    );
    for (const name of used)
      if (!Object.hasOwn(e.params, name))
        ctx.addIssue({ code: 'custom', path: ['args'], message: `uses {${name}}, which params does not declare` });
    for (const name of Object.keys(e.params))
      if (!used.has(name)) ctx.addIssue({ code: 'custom', path: ['params', name], message: 'is not used in args' });
    for (const [name, p] of Object.entries(e.params)) {
      try {
        new RegExp(p.pattern, 'u');
      } catch {
        ctx.addIssue({ code: 'custom', path: ['params', name, 'pattern'], message: 'is not a valid regular expression' });
      }
    }
    for (const name of Object.keys(e.secrets))
      if (Object.hasOwn(e.env, name)) ctx.addIssue({ code: 'custom', path: ['secrets', name], message: 'is also fixed in env' });
    if (e.package) {
      const pin = e.command === 'npx' ? `${e.package.name}@${e.package.version}` : `${e.package.name}==${e.package.version}`;
      if ((e.command === 'npx' || e.command === 'uvx') && !e.args.includes(pin))
        ctx.addIssue({ code: 'custom', path: ['args'], message: `must name the pinned package as ${pin}` });
    }
  });
export type CatalogEntry = z.infer<typeof catalogEntry>;
export type Limits = z.infer<typeof limits>;
export const defaultLimits: Limits = limits.parse({});

const catalogFile = z.strictObject({ $comment: z.string().optional(), entries: z.array(catalogEntry) });

/** What a registration asks for once matched to an entry: stored in the artifact instead of free-form arguments. */
export interface CatalogLaunch {
  entry: CatalogEntry;
  params: Record<string, string>;
  /** The argument list the entry gives for these parameters: what is spawned, and what the artifact shows. */
  args: string[];
}

export class CatalogMismatch extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

const anchored = (pattern: string) => new RegExp(`^(?:${pattern})$`, 'u');
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The operators' catalog of stdio launches, read from one or more JSON files (later files add entries). */
export class StdioCatalog {
  private readonly byId: Map<string, CatalogEntry>;

  constructor(readonly entries: CatalogEntry[]) {
    this.byId = new Map();
    for (const e of entries) {
      if (this.byId.has(e.id)) throw new Error(`stdio catalog: entry ${e.id} is defined twice`);
      this.byId.set(e.id, e);
    }
  }

  static load(paths: string[]): StdioCatalog {
    const entries = paths.flatMap((path) => {
      let raw: unknown;
      try {
        raw = JSON.parse(readFileSync(path, 'utf8'));
      } catch (err) {
        throw new Error(`stdio catalog ${path}: ${(err as Error).message}`);
      }
      const parsed = catalogFile.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new Error(`stdio catalog ${path}: ${issue.path.join('.')} ${issue.message}`);
      }
      return parsed.data.entries;
    });
    return new StdioCatalog(entries);
  }

  get(id: string): CatalogEntry | undefined {
    return this.byId.get(id);
  }

  /**
   * The launch a registration names: by `catalog_entry` and `params`, or by spelling out exactly an
   * entry's command and arguments (or one of its aliases). Nothing else is ever launched.
   */
  match(reg: {
    command?: string;
    args?: string[];
    catalog_entry?: string;
    params?: Record<string, string>;
    env?: Record<string, unknown>;
  }): CatalogLaunch {
    const launch = this.entryOf(reg);
    const { entry } = launch;
    const env = reg.env ?? {};
    for (const name of Object.keys(env)) {
      if (!Object.hasOwn(entry.secrets, name))
        throw new CatalogMismatch(
          `is not a secret catalog entry ${entry.id} declares (${Object.keys(entry.secrets).join(', ') || 'it declares none'})`,
          `env.${name}`,
        );
    }
    for (const [name, s] of Object.entries(entry.secrets))
      if (s.required && env[name] === undefined) throw new CatalogMismatch(`is required by catalog entry ${entry.id}`, `env.${name}`);
    return launch;
  }

  private entryOf(reg: { command?: string; args?: string[]; catalog_entry?: string; params?: Record<string, string> }): CatalogLaunch {
    if (reg.catalog_entry !== undefined) {
      const entry = this.byId.get(reg.catalog_entry);
      if (!entry)
        throw new CatalogMismatch(
          `is not an entry of this deployment's stdio catalog (GET /mcp/stdio-catalog lists them)`,
          'catalog_entry',
        );
      if (reg.command !== undefined && reg.command !== entry.command)
        throw new CatalogMismatch(`must be ${entry.command} for catalog entry ${entry.id}, or left out`, 'command');
      const params = this.checkParams(entry, reg.params ?? {});
      const args = expand(entry.args, params);
      if (
        reg.args !== undefined &&
        reg.args.length > 0 &&
        !sameArgs(reg.args, args) &&
        !entry.aliases.some((a) => sameArgs(a, reg.args!))
      ) {
        throw new CatalogMismatch(`must be the catalog entry's own arguments (${JSON.stringify(args)}), or left out`, 'args');
      }
      return { entry, params, args };
    }
    if (reg.params !== undefined && Object.keys(reg.params).length > 0)
      throw new CatalogMismatch('are only taken together with catalog_entry', 'params');
    for (const entry of this.entries) {
      if (entry.command !== reg.command) continue;
      const given = reg.args ?? [];
      if (entry.aliases.some((a) => sameArgs(a, given))) {
        const params = this.checkParams(entry, {});
        return { entry, params, args: expand(entry.args, params) };
      }
      const params = matchTemplate(entry, given);
      if (params) return { entry, params: this.checkParams(entry, params), args: expand(entry.args, params) };
    }
    throw new CatalogMismatch(
      `${JSON.stringify([reg.command, ...(reg.args ?? [])].join(' '))} is not a launch this deployment's operators approved; name an entry of the stdio catalog with catalog_entry (GET /mcp/stdio-catalog lists them)`,
      'command',
    );
  }

  private checkParams(entry: CatalogEntry, given: Record<string, string>): Record<string, string> {
    for (const name of Object.keys(given))
      if (!Object.hasOwn(entry.params, name))
        throw new CatalogMismatch(`is not a parameter of catalog entry ${entry.id}`, `params.${name}`);
    const out: Record<string, string> = Object.create(null);
    for (const [name, p] of Object.entries(entry.params)) {
      const value = Object.hasOwn(given, name) ? given[name] : undefined;
      if (value === undefined) {
        if (p.required) throw new CatalogMismatch(`is required by catalog entry ${entry.id}`, `params.${name}`);
        continue;
      }
      if (typeof value !== 'string' || value.length > 1024)
        throw new CatalogMismatch('must be a string of at most 1024 characters', `params.${name}`);
      if (value.startsWith('-') && !(p.type === 'integer' && /^-\d+$/.test(value)))
        throw new CatalogMismatch('may not start with "-": a parameter is never an option', `params.${name}`);
      if (/[\0\n\r]/.test(value)) throw new CatalogMismatch('may not contain NUL or line breaks', `params.${name}`);
      if (p.type === 'integer' && !/^-?\d{1,15}$/.test(value)) throw new CatalogMismatch('must be an integer', `params.${name}`);
      if (!anchored(p.pattern).test(value)) throw new CatalogMismatch(`must match ${p.pattern}`, `params.${name}`);
      out[name] = value;
    }
    return out;
  }
}

function sameArgs(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The entry's arguments with its parameters filled in; an argument whose optional parameter is absent is left out. */
function expand(template: string[], params: Record<string, string>): string[] {
  return template.flatMap((arg) => {
    const names = [...arg.matchAll(placeholder)].map((m) => m[1]!);
    if (names.some((n) => !Object.hasOwn(params, n))) return [];
    return [arg.replace(placeholder, (_, n: string) => params[n]!)];
  });
}

/** The parameters with which `given` is exactly the entry's arguments, or null. */
function matchTemplate(entry: CatalogEntry, given: string[]): Record<string, string> | null {
  if (given.length !== entry.args.length) return null;
  const params: Record<string, string> = Object.create(null);
  for (const [i, arg] of entry.args.entries()) {
    const names: string[] = [];
    const source = arg
      .split(placeholder)
      .map((part, j) => (j % 2 === 0 ? escape(part) : (names.push(part), '(.+?)')))
      .join('');
    const m = new RegExp(`^${source}$`, 'su').exec(given[i]!);
    if (!m) return null;
    for (const [k, name] of names.entries()) {
      if (Object.hasOwn(params, name) && params[name] !== m[k + 1]) return null;
      params[name] = m[k + 1]!;
    }
  }
  return params;
}
