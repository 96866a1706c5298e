/**
 * A relayed call's env holds the person's secrets, resolved for that call alone: every text the relay
 * prints or posts goes through here first. Values shorter than 4 characters are left alone (scrubbing
 * "1" or "true" would garble every message without protecting anything).
 */
export function scrub(text: string, env: Record<string, string> | readonly string[]): string {
  const values = (Array.isArray(env) ? env : Object.values(env)) as string[];
  let out = text;
  for (const v of [...new Set(values)].filter((x) => x.length >= 4).sort((a, b) => b.length - a.length))
    out = out.split(v).join('[redacted]');
  return out;
}

/** Deep scrub of a JSON value (a result posted to the platform). */
export function scrubJson<T>(value: T, env: Record<string, string>): T {
  if (Object.values(env).every((v) => v.length < 4)) return value;
  return JSON.parse(JSON.stringify(value), (_k, v: unknown) => (typeof v === 'string' ? scrub(v, env) : v)) as T;
}
