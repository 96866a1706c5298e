import { v7 as uuidv7 } from 'uuid';
import type { ExternalIdentityDoc, ExternalIdentityStore } from '../../store/external-identities.js';
import { isDuplicateKey } from '../../store/mongo.js';
import type { UserStore } from '../../store/users.js';
import { unusablePasswordHash } from '../passwords.js';
import type { ExternalIdentity } from './allow-list.js';
import type { IdentityProviderConfig } from './config.js';
import { ExternalSignInError } from './errors.js';

/**
 * The person behind an external identity. The link is inserted first, with the person's id chosen
 * beforehand, and the account made after it under that id: of concurrent first sign-ins one link
 * wins and every one of them ends at its person, and no account is ever made that no link names.
 */
export class ExternalAccounts {
  private readonly byName: Map<string, IdentityProviderConfig>;

  constructor(
    private readonly links: ExternalIdentityStore,
    private readonly users: UserStore,
    providers: IdentityProviderConfig[],
  ) {
    this.byName = new Map(providers.map((p) => [p.name, p]));
  }

  /**
   * The person linked to the identity; on its first sign-in, a new account (with no usable password),
   * or the existing account with its e-mail when the provider has `trust_email` and the IdP verified
   * the e-mail. An existing account the provider may not link to is refused ('account_exists').
   */
  async findOrCreatePerson(identity: ExternalIdentity): Promise<{ personId: string; created: boolean }> {
    const provider = this.byName.get(identity.provider);
    if (!provider) throw new ExternalSignInError('unknown_provider', 'There is no such sign-in provider.', identity.provider);
    const held = await this.links.find(identity.issuer, identity.subject);
    if (held) return { personId: held.person_id, created: await this.ensureAccount(held, provider) };

    // Only an e-mail the IdP verified may name an account: an unverified one could claim someone else's.
    const email = identity.emailVerified ? identity.email : null;
    let personId = uuidv7();
    const existing = email ? await this.users.findByEmail(email) : null;
    if (existing) {
      // It may be this identity's own account, made by a concurrent first sign-in since the lookup
      // above: an account is only ever made after its link, so the link is there to read now.
      const raced = await this.links.find(identity.issuer, identity.subject);
      if (raced) return { personId: raced.person_id, created: await this.ensureAccount(raced, provider) };
      if (!provider.trust_email) throw accountExists(provider, email!);
      personId = existing._id;
    }
    const { doc } = await this.links.link({
      issuer: identity.issuer,
      subject: identity.subject,
      provider: provider.name,
      person_id: personId,
      email,
    });
    return { personId: doc.person_id, created: await this.ensureAccount(doc, provider) };
  }

  /** Makes the linked account unless it exists (a concurrent sign-in may be making it too); true if this call made it. */
  private async ensureAccount(link: ExternalIdentityDoc, provider: IdentityProviderConfig): Promise<boolean> {
    if (await this.users.findById(link.person_id)) return false;
    // Without a verified e-mail the account gets an address that can never be real (RFC 2606 .invalid) and never collides.
    const email = link.email ?? `${link._id.slice(0, 32)}@${provider.name}.external.invalid`;
    try {
      await this.users.create(email, unusablePasswordHash(), false, link.person_id);
      return true;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      if (await this.users.findById(link.person_id)) return false; // made by the concurrent sign-in
      // Another account took the e-mail since the link was made: undo the link, refuse like any taken e-mail.
      await this.links.unlink(link.issuer, link.subject, link.person_id);
      throw accountExists(provider, email);
    }
  }
}

function accountExists(provider: IdentityProviderConfig, email: string): ExternalSignInError {
  return new ExternalSignInError(
    'account_exists',
    `An account with the e-mail ${email} already exists. Sign in to it the way you did before, or ask an administrator to link your ${provider.label} account.`,
    `${provider.name}: ${email} belongs to an account this provider may not link to (trust_email is off)`,
  );
}
