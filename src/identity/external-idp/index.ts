// Human sign-in with external OpenID Connect providers (SPEC §5.10): configuration, the sign-in flow,
// and the person behind an external identity.
export { isAllowed, type ExternalIdentity } from './allow-list.js';
export { ExternalAccounts } from './accounts.js';
export { identityProviderSchema, identityProvidersSchema, parseIdentityProviders, type IdentityProviderConfig } from './config.js';
export { ExternalSignInError, type ExternalSignInErrorCode } from './errors.js';
export { ExternalIdentityProviders, pendingLifetimeMs, type PendingSignIn } from './providers.js';
