/**
 * Why an external sign-in did not complete. `code` is stable (a login page may switch on it) and
 * `message` is safe to show the person signing in: it names the provider by its label and never
 * carries tokens, the IdP's free text or internal addresses. `detail` is for the log only.
 */
export type ExternalSignInErrorCode =
  /** The identity is not on the provider's allow-list. */
  | 'not_allowed'
  /** The IdP refused (error= on the callback, or its token endpoint said no). */
  | 'idp_error'
  /** The callback does not belong to the pending sign-in (state mismatch, expired, unknown provider). */
  | 'invalid_state'
  /** The IdP answered something that does not verify (discovery, token response, id_token, userinfo). */
  | 'invalid_response'
  /** The IdP could not be reached (refused by the outbound guard, timeout, network, 5xx). */
  | 'unreachable'
  /** No provider of that name is configured. */
  | 'unknown_provider'
  /** An account with the identity's e-mail exists and the provider may not link to it (trust_email is off). */
  | 'account_exists';

export class ExternalSignInError extends Error {
  constructor(
    readonly code: ExternalSignInErrorCode,
    message: string,
    /** What went wrong in terms for an operator; logged, never shown. */
    readonly detail?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ExternalSignInError';
  }
}
