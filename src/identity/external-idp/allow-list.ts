import type { IdentityProviderConfig } from './config.js';

/** What a provider vouched for, once its id_token (and userinfo) verified. */
export interface ExternalIdentity {
  /** The configured provider's name. */
  provider: string;
  issuer: string;
  /** The IdP's `sub`: stable and unique within the issuer. */
  subject: string;
  /** Lower-cased; null when the IdP gave none. */
  email: string | null;
  /** True only when the IdP asserted `email_verified: true` for this e-mail. */
  emailVerified: boolean;
  name?: string;
}

type AllowLists = Pick<IdentityProviderConfig, 'allowed_emails' | 'allowed_domains' | 'allowed_subjects' | 'allow_any'>;

/**
 * Whether the provider admits this identity: `allow_any`, or its subject is listed, or its e-mail,
 * only when the IdP verified it, is listed (case-insensitively) or is at a listed domain (exactly:
 * example.com does not admit sub.example.com).
 */
export function isAllowed(lists: AllowLists, identity: Pick<ExternalIdentity, 'subject' | 'email' | 'emailVerified'>): boolean {
  if (lists.allow_any) return true;
  if (lists.allowed_subjects?.includes(identity.subject)) return true;
  if (!identity.emailVerified || !identity.email) return false;
  const email = identity.email.toLowerCase();
  if (lists.allowed_emails?.some((allowed) => allowed.toLowerCase() === email)) return true;
  const at = email.lastIndexOf('@');
  const domain = at > 0 ? email.slice(at + 1) : '';
  return !!domain && !!lists.allowed_domains?.some((allowed) => allowed.toLowerCase() === domain);
}
