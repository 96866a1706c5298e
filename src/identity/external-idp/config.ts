import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * The external OpenID Connect providers people may sign in with, as an administrator configures them
 * (a JSON array in an environment variable). Every provider must say whom it admits: at least one
 * allow-list, or `allow_any: true` written out, so a provider is never open to everyone by omission.
 */

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);
const isLoopback = (host: string) => loopbackHosts.has(host) || (isIP(host) === 4 && host.startsWith('127.'));

/** OpenID Connect issuers are https URLs (Discovery §3); plain http only on loopback, for development and tests. */
const issuer = z
  .url({ protocol: /^https?$/ })
  .refine((value) => {
    const url = new URL(value);
    return url.protocol === 'https:' || isLoopback(url.hostname);
  }, 'must be an https URL (http only on loopback)')
  .refine((value) => {
    const url = new URL(value);
    return !url.search && !url.hash && !url.username && !url.password;
  }, 'must have no query, fragment or credentials');

const domain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'must be a domain name such as example.com (no @)');

export const identityProviderSchema = z
  .strictObject({
    /** The provider's name in URLs and records: a slug, unique among the providers. */
    name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'must be a slug: lowercase letters, digits and dashes, at most 40'),
    /** What the login page shows ("Sign in with …"). */
    label: z.string().trim().min(1).max(80),
    issuer,
    client_id: z.string().min(1).max(512),
    /** Absent: a public client, protected by PKCE alone. */
    client_secret: z.string().min(1).max(1024).optional(),
    scopes: z
      .string()
      .trim()
      .default('openid email profile')
      .refine((s) => s.split(/\s+/).includes('openid'), 'must include openid'),
    allowed_emails: z.array(z.string().trim().toLowerCase().pipe(z.email())).optional(),
    allowed_domains: z.array(domain).optional(),
    allowed_subjects: z.array(z.string().min(1).max(255)).optional(),
    /** Admit every identity the provider vouches for; must be said explicitly. */
    allow_any: z.boolean().default(false),
    /** Whether a verified e-mail from this provider may sign in to an existing account with that e-mail. */
    trust_email: z.boolean().default(false),
  })
  .superRefine((p, ctx) => {
    const lists = [p.allowed_emails, p.allowed_domains, p.allowed_subjects].filter((l) => l && l.length > 0).length;
    if (p.allow_any && lists > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['allow_any'],
        message: 'allow_any admits everyone: give either allow_any or allow-lists, not both',
      });
    } else if (!p.allow_any && lists === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['allowed_emails'],
        message:
          'no allow-list: give allowed_emails, allowed_domains or allowed_subjects, or allow_any: true to admit anyone the provider vouches for',
      });
    }
  });

export const identityProvidersSchema = z.array(identityProviderSchema).superRefine((list, ctx) => {
  const seen = new Set<string>();
  list.forEach((p, i) => {
    if (seen.has(p.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `"${p.name}" is used by two providers` });
    seen.add(p.name);
  });
});

export type IdentityProviderConfig = z.infer<typeof identityProviderSchema>;

/**
 * Parses the administrator's JSON; throws an Error naming the provider and the field at fault, e.g.
 * `identity provider 2 ("corp"): allowed_domains.0: must be a domain name such as example.com (no @)`.
 */
export function parseIdentityProviders(json: string, setting = 'identity providers'): IdentityProviderConfig[] {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (err) {
    throw new Error(`${setting}: not valid JSON (${(err as Error).message})`);
  }
  const parsed = identityProvidersSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => {
    const [index, ...field] = issue.path;
    if (typeof index !== 'number') return `${setting}: ${issue.message}`;
    const name = (raw as { name?: unknown }[])[index]?.name;
    const which = `identity provider ${index + 1}${typeof name === 'string' ? ` ("${name}")` : ''}`;
    return `${setting}: ${which}: ${field.length ? `${field.join('.')}: ` : ''}${issue.message}`;
  });
  throw new Error(lines.join('\n'));
}
