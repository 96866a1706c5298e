import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultPolicyPath, defaultStateDir, relayPackageVersion } from './config.js';
import { Launcher } from './launch.js';
import { initialPolicyText, loadPolicy, PolicyFileError } from './policy.js';
import { exitCodes, Relay } from './relay.js';

export const usage = `platform-relay: runs MCP servers on this machine for the platform, under a local policy.

Usage:
  platform-relay --url <platform URL> --client-id <id> [options]
  platform-relay policy [--init] [--policy <path>]

Options:
  --url <url>            the platform's base URL (or PLATFORM_URL)
  --client-id <id>       the server credential's client id (or PLATFORM_RELAY_CLIENT_ID)
  --secret-file <path>   a file holding the credential's secret; else PLATFORM_RELAY_CLIENT_SECRET
                         (never on the command line: it would show in ps)
  --policy <path>        the local policy (default ${defaultPolicyPath()})
  --state-dir <path>     clones and pinned commits (default ${defaultStateDir()})
  --git-base <url>       where repositories are cloned from (default https://github.com)
  --help, --version

  policy                 prints the effective policy and its path; --init writes the default file
`;

class UsageError extends Error {}

const options = {
  url: { type: 'string' },
  'client-id': { type: 'string' },
  'secret-file': { type: 'string' },
  policy: { type: 'string' },
  'state-dir': { type: 'string' },
  'git-base': { type: 'string' },
  init: { type: 'boolean' },
  help: { type: 'boolean' },
  version: { type: 'boolean' },
} as const;

function parse(argv: string[]) {
  if (argv.some((a) => a === '--secret' || a.startsWith('--secret=') || a === '--client-secret' || a.startsWith('--client-secret=')))
    throw new UsageError(
      'the secret is never taken on the command line (it would show in ps): set PLATFORM_RELAY_CLIENT_SECRET or use --secret-file',
    );
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0]!);
  }
}

const log = (line: string) => process.stderr.write(`[platform-relay ${new Date().toISOString()}] ${line}\n`);

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const { values, positionals } = parse(argv);
    if (values.help) {
      process.stdout.write(usage);
      return 0;
    }
    if (values.version) {
      process.stdout.write(`${relayPackageVersion()}\n`);
      return 0;
    }
    const policyPath = resolve(values.policy ?? defaultPolicyPath(env));
    if (positionals[0] === 'policy' && positionals.length === 1) return policyCommand(policyPath, values.init ?? false);
    if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]} (see --help)`);
    if (values.init) throw new UsageError('--init belongs to the policy subcommand: platform-relay policy --init');
    const url = values.url ?? env.PLATFORM_URL;
    if (!url) throw new UsageError('--url (or PLATFORM_URL) is required');
    let parsedUrl: URL;
    try {
      parsedUrl = new URL(url);
    } catch {
      throw new UsageError(`--url ${url} is not a URL`);
    }
    if (parsedUrl.protocol !== 'https:' && parsedUrl.protocol !== 'http:')
      throw new UsageError(`--url must be http(s), not ${parsedUrl.protocol}`);
    const clientId = values['client-id'] ?? env.PLATFORM_RELAY_CLIENT_ID;
    if (!clientId) throw new UsageError('--client-id (or PLATFORM_RELAY_CLIENT_ID) is required');
    let secret = env.PLATFORM_RELAY_CLIENT_SECRET;
    if (values['secret-file']) {
      try {
        secret = readFileSync(values['secret-file'], 'utf8').trim();
      } catch (err) {
        throw new UsageError(`cannot read --secret-file: ${(err as Error).message}`);
      }
    }
    if (!secret) throw new UsageError('the secret is missing: set PLATFORM_RELAY_CLIENT_SECRET or use --secret-file');
    const { policy, exists } = loadPolicy(policyPath);
    const stateDir = resolve(values['state-dir'] ?? defaultStateDir(env));
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const cwd = process.cwd();
    const launcher = new Launcher({ policy, policyPath, stateDir, cwd });
    log(
      `platform-relay ${relayPackageVersion()}: policy ${policyPath}${exists ? '' : ' (absent: the defaults, which allow no package)'}, sandbox ${launcher.kind}`,
    );
    if (launcher.unavailable) log(`no server will run: ${launcher.unavailable}`);
    const stop = new AbortController();
    const onSignal = (signal: string) => {
      log(`${signal}: closing servers`);
      stop.abort();
    };
    process.once('SIGINT', () => onSignal('SIGINT'));
    process.once('SIGTERM', () => onSignal('SIGTERM'));
    const relay = new Relay({
      url,
      clientId,
      secret,
      policy,
      policyPath,
      stateDir,
      gitBase: values['git-base'] ?? 'https://github.com',
      launcher,
      cwd,
      log,
    });
    return await relay.run(stop.signal);
  } catch (err) {
    if (err instanceof UsageError || err instanceof PolicyFileError) {
      process.stderr.write(`platform-relay: ${err.message}\n`);
      return exitCodes.usage;
    }
    throw err;
  }
}

function policyCommand(path: string, init: boolean): number {
  if (init) {
    if (existsSync(path)) throw new UsageError(`${path} exists already: edit it, or remove it first`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, initialPolicyText(), { flag: 'wx' });
    process.stdout.write(`wrote ${path}\n`);
    return 0;
  }
  const { policy, exists } = loadPolicy(path);
  process.stdout.write(`# ${path}${exists ? '' : ' (absent: the defaults)'}\n${JSON.stringify(policy, null, 2)}\n`);
  return 0;
}
