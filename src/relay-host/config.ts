import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The relay program's version: this repository's package version (what `--version` prints and hello reports). */
export function relayPackageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** `$XDG_CONFIG_HOME/platform-relay/policy.json`, else `~/.config/platform-relay/policy.json`. */
export function defaultPolicyPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'platform-relay', 'policy.json');
}

/** `$XDG_STATE_HOME/platform-relay`, else `~/.local/state/platform-relay`: clones and pinned commits. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'platform-relay');
}
