import { readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';
import { z } from 'zod';
import type { PolicySummary } from '../relay-protocol/wire.js';
import { steeringEnv } from '../relay-protocol/wire.js';

/**
 * The person's local policy (issue #34): what the relay on their machine may run, whatever the
 * platform asks. Pure checks: every function here answers allowed or the rule that refused.
 */
export const relayCommands = ['npx', 'uvx', 'python', 'python3', 'node', 'deno'] as const;
export type RelayCommand = (typeof relayCommands)[number];

const absolute = z.string().refine((p) => isAbsolute(p), 'must be an absolute path');

export const policySchema = z.strictObject({
  $comment: z.string().optional(),
  commands: z.array(z.enum(relayCommands)).default([...relayCommands]),
  /** npx / uvx / deno packages: a bare name allows any version, `name@1.2.3` / `name==1.2.3` exactly that one, `*` any package. */
  packages: z.array(z.string().min(1).max(300)).max(500).default([]),
  /** `owner/name` or `owner/*`. */
  repositories: z
    .array(z.string().regex(/^[A-Za-z0-9_.-]+\/([A-Za-z0-9_.-]+|\*)$/, 'must be owner/name or owner/*'))
    .max(500)
    .default([]),
  folders: z
    .array(z.strictObject({ path: absolute, write: z.boolean().default(false) }))
    .max(100)
    .default([]),
  network: z.boolean().default(false),
  sandbox: z.enum(['auto', 'none']).default('auto'),
});
export type Policy = z.infer<typeof policySchema>;

export const defaultPolicy = (): Policy => policySchema.parse({});

export class PolicyFileError extends Error {}

/** The policy file, or the defaults when there is none; a bad file is an error naming the field. */
export function loadPolicy(path: string): { policy: Policy; exists: boolean } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { policy: defaultPolicy(), exists: false };
    throw new PolicyFileError(`cannot read the policy file ${path}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new PolicyFileError(`the policy file ${path} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = policySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new PolicyFileError(`the policy file ${path}: ${issue.path.join('.') || '(the document)'} ${issue.message}`);
  }
  return { policy: parsed.data, exists: true };
}

export const policySummary = (p: Policy): PolicySummary => ({
  commands: p.commands,
  packages: p.packages,
  repositories: p.repositories,
  folders: p.folders,
  network: p.network,
});

/** The default file `policy --init` writes: JSON has no comments, so `$comment` says what each field means. */
export const initialPolicyText = () =>
  `${JSON.stringify(
    {
      $comment:
        'platform-relay local policy. commands: runners the platform may start (npx, uvx, python, python3, node, deno). ' +
        'packages: npx/uvx/deno packages allowed ("name" any version, "name@1.2.3" or "name==1.2.3" exactly, "*" any). ' +
        'repositories: "owner/name" or "owner/*" for the repository transport. folders: {"path": "/abs/dir", "write": false} ' +
        'shown to servers at the same path (node/python scripts must live in one). network: whether servers reach the network. ' +
        'sandbox: "auto" (bubblewrap on Linux, sandbox-exec on macOS) or "none" (no sandbox: only if you trust every allowed server).',
      commands: [...relayCommands],
      packages: [],
      repositories: [],
      folders: [],
      network: false,
      sandbox: 'auto',
    },
    null,
    2,
  )}\n`;

/** Allowed, with the package the launch names, and its arguments with the script as its real path (what was checked is what runs). */
export type Verdict = { ok: true; package?: string; args?: string[] } | { ok: false; rule: string };

const refuse = (rule: string): Verdict => ({ ok: false, rule });

/** `@scope/name@1.2.3` → `{name: '@scope/name', version: '1.2.3'}`. */
export function splitNpm(spec: string): { name: string; version?: string } {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  return at > 0 ? { name: spec.slice(0, at), version: spec.slice(at + 1) } : { name: spec };
}

/** `name==1.2.3` or `name@1.2.3` (uv accepts both); extras `name[x]` are kept out of the name. */
export function splitPypi(spec: string): { name: string; version?: string } {
  const m = /^([^=@[<>!~ ]+)(\[[^\]]*\])?(?:(==|@)(.+))?$/.exec(spec);
  if (!m) return { name: spec, version: '(a range)' };
  return m[4] ? { name: m[1]!, version: m[4] } : { name: m[1]! };
}

/** Whether a package (with the version the launch names, if any) matches one of the policy's entries. */
export function packageAllowed(policy: Policy, ecosystem: 'npm' | 'pypi', spec: string): boolean {
  const split = ecosystem === 'npm' ? splitNpm : splitPypi;
  const asked = split(spec);
  const norm = (n: string) => (ecosystem === 'pypi' ? n.toLowerCase().replace(/[-_.]+/g, '-') : n);
  return policy.packages.some((entry) => {
    if (entry === '*') return true;
    const allowed = split(entry);
    if (norm(allowed.name) !== norm(asked.name)) return false;
    // A pinned entry allows exactly that version; a bare one any version the launch names.
    return allowed.version === undefined || allowed.version === asked.version;
  });
}

/** The script's real path when it lies inside a policy folder (symlinks and `..` resolved first), else null. */
export function scriptInFolders(policy: Policy, script: string, cwd: string): string | null {
  let real: string;
  try {
    real = realpathSync(resolve(cwd, script));
  } catch {
    return null;
  }
  for (const f of policy.folders) {
    let dir: string;
    try {
      dir = realpathSync(f.path);
    } catch {
      continue;
    }
    if (real === dir || real.startsWith(dir.endsWith(sep) ? dir : dir + sep)) return real;
  }
  return null;
}

const isFlag = (a: string) => a.startsWith('-');

/** A registry package, optionally with a version or tag: no path, URL, git or alias spec. */
const npmName = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*(@[^\s/:\\]+)?$/;

/**
 * `npx [-y|--yes|--no-install|--prefer-offline] <package> [its arguments]`: what runs is the package's
 * own bin. `-p/--package` and `-c/--call` are refused: with them npx runs any command (node -e …, or
 * another package's bin) beside an allowed package.
 */
function checkNpx(policy: Policy, args: string[]): Verdict {
  const first = args.findIndex((a) => !isFlag(a));
  for (const a of args.slice(0, first < 0 ? args.length : first))
    if (!['-y', '--yes', '--no-install', '--prefer-offline'].includes(a))
      return refuse(`npx flag ${a} is not one the policy allows (only -y, --yes, --no-install, --prefer-offline before the package)`);
  const pkg = first < 0 ? undefined : args[first];
  if (!pkg) return refuse('npx must name a package');
  if (!npmName.test(pkg)) return refuse(`npx ${pkg} is not a registry package name (paths, URLs and git specs are refused)`);
  if (!packageAllowed(policy, 'npm', pkg)) return refuse(`package ${pkg} is not in the policy's "packages"`);
  return { ok: true, package: pkg };
}

/**
 * `uvx [--offline|-q|--quiet] <package> [its arguments]`: what runs is the package's own command.
 * `--from`, `--with`, index and Python options are refused: with them uvx runs another command (python
 * -c …) or installs packages the policy does not list.
 */
function checkUvx(policy: Policy, args: string[]): Verdict {
  const first = args.findIndex((a) => !isFlag(a));
  for (const a of args.slice(0, first < 0 ? args.length : first))
    if (!['--offline', '-q', '--quiet'].includes(a))
      return refuse(`uvx flag ${a} is not one the policy allows (only --offline, -q, --quiet before the package)`);
  const pkg = first < 0 ? undefined : args[first];
  if (!pkg) return refuse('uvx must name a package');
  if (/[/\\]|^\.|:\/\//.test(pkg)) return refuse(`uvx ${pkg} is a path or URL, not a package name`);
  if (!packageAllowed(policy, 'pypi', pkg)) return refuse(`package ${pkg} is not in the policy's "packages"`);
  return { ok: true, package: pkg };
}

/** Flags that run code given inline rather than a file: refused for every interpreter. */
const inline = new Set(['-e', '--eval', '-p', '--print', '-c', '-m', '-r', '--require', '--import', '--loader', '--experimental-loader']);

function checkScript(policy: Policy, command: string, args: string[], cwd: string): Verdict {
  const first = args.findIndex((a) => !isFlag(a));
  for (const a of args.slice(0, first < 0 ? args.length : first)) {
    if (inline.has(a.split('=')[0]!)) return refuse(`${command} ${a} runs inline code, which the policy never allows`);
    return refuse(`${command} flag ${a} before the script is not allowed (it could change what runs)`);
  }
  if (first < 0) return refuse(`${command} must name a script file`);
  const script = args[first]!;
  const real = scriptInFolders(policy, script, cwd);
  if (!real) return refuse(`script ${script} is not a file inside one of the policy's "folders"`);
  return { ok: true, args: args.map((a, i) => (i === first ? real : a)) };
}

function checkDeno(policy: Policy, args: string[], cwd: string): Verdict {
  if (args[0] !== 'run') return refuse('deno may only be started as `deno run <script or npm:/jsr: package>`');
  const rest = args.slice(1);
  const first = rest.findIndex((a) => !isFlag(a));
  // Deno's permission flags are what the sandbox decides: none is accepted from the platform.
  const flag = rest.slice(0, first < 0 ? rest.length : first)[0];
  if (flag) return refuse(`deno run flag ${flag} is not allowed (the sandbox decides what the server may do)`);
  if (first < 0) return refuse('deno run must name a script or package');
  const target = rest[first]!;
  const spec = /^(npm|jsr):(.+)$/.exec(target);
  if (spec) {
    const name = spec[2]!;
    if (!packageAllowed(policy, 'npm', name) && !packageAllowed(policy, 'npm', `${spec[1]}:${name}`))
      return refuse(`package ${target} is not in the policy's "packages"`);
    return { ok: true, package: target };
  }
  if (/^[a-z]+:/.test(target)) return refuse(`deno run ${target}: only files, npm: and jsr: packages are allowed`);
  const real = scriptInFolders(policy, target, cwd);
  if (!real) return refuse(`script ${target} is not a file inside one of the policy's "folders"`);
  return { ok: true, args: args.map((a, i) => (i === first + 1 ? real : a)) };
}

/** Whether the policy lets the platform start `command args` (a stdio transport). */
export function checkStdio(policy: Policy, command: string, args: string[], cwd: string): Verdict {
  if (!(relayCommands as readonly string[]).includes(command))
    return refuse(`command ${command} is not one of ${relayCommands.join(', ')}`);
  if (!(policy.commands as string[]).includes(command)) return refuse(`command ${command} is not in the policy's "commands"`);
  switch (command as RelayCommand) {
    case 'npx':
      return checkNpx(policy, args);
    case 'uvx':
      return checkUvx(policy, args);
    case 'deno':
      return checkDeno(policy, args, cwd);
    default:
      return checkScript(policy, command, args, cwd);
  }
}

export function checkEnv(keys: string[]): Verdict {
  const bad = keys.find((k) => steeringEnv.test(k) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(k));
  return bad === undefined ? { ok: true } : refuse(`env ${bad} could change what runs, so a server's registration may not set it`);
}

export const ownerRepoPattern = /^[A-Za-z0-9_][A-Za-z0-9_.-]*\/[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** Whether the policy lets the relay clone and run `owner/name`. */
export function checkRepository(policy: Policy, ownerRepo: string, ref: string): Verdict {
  if (!ownerRepoPattern.test(ownerRepo) || ownerRepo.includes('..')) return refuse(`repository ${ownerRepo} is not a valid owner/name`);
  if (!ref || ref.startsWith('-') || /[\s~^:?*[\\]|\.\.|@\{/.test(ref)) return refuse(`ref ${ref} is not a valid git ref`);
  const owner = ownerRepo.split('/')[0]!;
  const allowed = policy.repositories.some((r) => r === ownerRepo || r === `${owner}/*`);
  if (!allowed) return refuse(`repository ${ownerRepo} is not in the policy's "repositories"`);
  return { ok: true };
}
